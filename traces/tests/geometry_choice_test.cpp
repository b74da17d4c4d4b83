// Command-line geometry on workload models (traces::with_geometry) and the production workload.

#include <set>

#include <gtest/gtest.h>

#include "qsa/traces/geometry_choice.hpp"
#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/simulator.hpp"

namespace qsa::traces {
namespace {

Error error_of(const Workload& w, const GeometryChoice& g) {
  try {
    with_geometry(w, g);
  } catch (const InputError& e) {
    return e.error();
  }
  return Error{};
}

TEST(GeometryChoice, EachFlagReplacesTheWorkloadsValueInEveryScenario) {
  GeometryChoice g;
  g.head_dim = 64;
  g.rotary_dim = 32;
  g.num_heads = 3;
  g.block_size = 32;
  g.store_dtypes = {StoreDtype::kFp8E4m3};
  g.mrope = true;
  const Workload w = with_geometry(workload_by_name("ratios"), g);
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const ScenarioConfig c = resolve_workload(w, seed).config;
    EXPECT_EQ(c.head_dim, 64);
    EXPECT_EQ(c.rotary_dim, 32);
    EXPECT_EQ(c.num_heads, 3);
    EXPECT_EQ(c.block_size, 32);
    EXPECT_EQ(c.store_dtype, StoreDtype::kFp8E4m3);
    EXPECT_TRUE(c.mrope);
  }
  // ratios draws C from 2, 4, 8, 16 with B = R, 2R or 4R: a fixed B keeps only the C that divide it
  // and have a ring capacity, and their drafts; nothing else of the workload changes.
  std::set<int64_t> ratios;
  for (const Geometry& geometry : w.geometries) {
    EXPECT_EQ(geometry.block_size, 32);
    ratios.insert(geometry.compress_ratio);
  }
  EXPECT_GT(ratios.size(), 1u);
}

TEST(GeometryChoice, AGeometryTheContractRejectsNamesTheFlag) {
  GeometryChoice odd_rotary;
  odd_rotary.rotary_dim = 15;
  EXPECT_EQ(error_of(workload_by_name("default"), odd_rotary).field, "--rotary-dim");
  GeometryChoice head;
  head.head_dim = 48;  // not a power of two
  EXPECT_EQ(error_of(workload_by_name("default"), head).field, "--head-dim");
  GeometryChoice heads;
  heads.num_heads = 1025;  // past validate_step()'s 1024
  EXPECT_EQ(error_of(workload_by_name("default"), heads).field, "--query-heads");
  GeometryChoice block;
  block.block_size = 18;  // C = 4 does not divide it
  const Error e = error_of(workload_by_name("default"), block);
  EXPECT_EQ(e.field, "--block-size");
  EXPECT_NE(e.message.find("workload default at D=32 rd=16 HQ=2 C=4 B=18 drafts=3"), std::string::npos) << e.message;
}

TEST(GeometryChoice, BothDtypesMakeEachScenarioDrawOne) {
  GeometryChoice g;
  g.store_dtypes = {StoreDtype::kBf16, StoreDtype::kFp8E4m3};
  const Workload w = with_geometry(workload_by_name("default"), g);
  std::set<StoreDtype> seen;
  for (uint64_t seed = 1; seed <= 16; ++seed) seen.insert(resolve_workload(w, seed).config.store_dtype);
  EXPECT_EQ(seen.size(), 2u);
}

// The production workload is the model's geometry in all four combinations of MRoPE and dtype, and
// its scenarios run (the simulator's rules are checked for every workload by simulator_test).
TEST(ProductionWorkload, HasTheModelsGeometryWithAndWithoutMropeInBothDtypes) {
  const Workload w = workload_by_name("production");
  std::set<std::pair<bool, StoreDtype>> seen;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const ScenarioConfig c = resolve_workload(w, seed).config;
    EXPECT_EQ(c.head_dim, 128);
    EXPECT_EQ(c.rotary_dim, 64);
    EXPECT_EQ(c.num_heads, 4);
    EXPECT_EQ(c.compress_ratio, 4);
    EXPECT_EQ(c.block_size, 16);
    EXPECT_EQ(c.num_speculative_tokens, 3);
    EXPECT_EQ(c.ring_capacity, 8);
    if (c.mrope) {
      const auto sections = c.mrope_sections();
      EXPECT_EQ(*sections, (std::array<int64_t, 3>{11, 11, 10}));
    }
    seen.insert({c.mrope, c.store_dtype});
  }
  EXPECT_EQ(seen.size(), 4u);
}

TEST(ProductionPreset, IsTheProductionWorkloadsGeometry) {
  const GeometryChoice g = production_geometry();
  EXPECT_EQ(g.to_string(), "D=128 rd=64 HQ=4 C=4 B=16 drafts=3 MRoPE=on store=bf16,fp8_e4m3");
}

}  // namespace
}  // namespace qsa::traces
