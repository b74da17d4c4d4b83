// The edge-shaped metadata generator and the `edges` workload reach the input classes of docs/input-space.md:
// more than 1024 requests, a zero-length request first, compress ratios that are not powers of
// two, block ids near INT32_MAX with slots past 2^31, MRoPE splits other than 11:11:10; every draw
// is valid and the reference passes every check on the scenarios.

#include <algorithm>
#include <climits>
#include <iostream>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "qsa/numerics.hpp"
#include "qsa/reference/reference_backend.hpp"
#include "qsa/reference/metadata.hpp"
#include "qsa/traces/batch_generator.hpp"
#include "qsa/engine/scenario_runner.hpp"
#include "qsa/traces/simulator.hpp"
#include "qsa/traces/workloads.hpp"
#include "qsa/validate.hpp"

namespace qsa::traces {
namespace {

bool power_of_two(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

TEST(Choice, EdgeRangeReachesEveryBoundAndStaysInside) {
  Rng rng(11);
  RngChoice choice(rng);
  std::set<int64_t> seen;
  for (int i = 0; i < 2000; ++i) {
    const int64_t v = choice.edge_range(1024, 2048);
    ASSERT_GE(v, 1024);
    ASSERT_LE(v, 2048);
    seen.insert(v);
  }
  for (int64_t bound : {1024, 1025, 2047, 2048}) EXPECT_EQ(seen.count(bound), 1u) << bound;
  EXPECT_GT(seen.size(), 100u) << "the inside is drawn too";
  EXPECT_EQ(choice.edge_range(5, 5), 5);
  EXPECT_EQ(choice.edge_range(7, 3), 7);
}

TEST(EdgeBatchGenerator, EveryDrawIsValidAndTheClassesAreReached) {
  const uint64_t seed = 20261202;
  std::cout << "seed " << seed << " (Rng(seed).fork(i) for draw i)\n";
  int many_requests = 0, zero_first = 0, odd_ratio = 0, far_block = 0, wide_slot = 0;
  std::set<int> shapes;
  for (uint64_t i = 0; i < 3000; ++i) {
    Rng rng = Rng(seed).fork(i);
    const GeneratedBatch g = random_metadata_input(rng);
    const MetadataInput& in = g.input;
    shapes.insert(static_cast<int>(g.shape));
    Error error;
    ASSERT_EQ(validate(in, &error), Status::kOk) << "draw " << i << " (" << to_string(g.shape) << "): " << error;
    const Batch& b = in.batch;
    many_requests += b.num_requests() > 1024;
    zero_first += b.num_requests() > 1 && b.query_len(0) == 0 && b.num_mapped_tokens() > 0;
    const bool compressed = in.cache.kind == CacheKind::kCompressed;
    odd_ratio += compressed && !power_of_two(*in.cache.compress_ratio);
    bool far = false;
    for (int64_t r = 0; r < in.block_table.rows && !far; ++r)
      for (int64_t c = 0; c < in.block_table.cols && !far; ++c) far = in.block_table.at(r, c) >= INT32_MAX - 3;
    far_block += far;
    if (compressed && far) {
      MetadataOutput out;
      ASSERT_EQ(reference::build_metadata(in, &out, &error), Status::kOk) << error;
      wide_slot += std::any_of(out.slot_mapping.begin(), out.slot_mapping.end(),
                               [](int64_t s) { return s > INT32_MAX; });
    }
  }
  EXPECT_EQ(shapes.size(), static_cast<size_t>(kNumBatchShapes)) << "every shape is drawn";
  EXPECT_GE(many_requests, 20) << "more than 1024 requests";
  EXPECT_GE(zero_first, 50) << "a zero-length request first";
  EXPECT_GE(odd_ratio, 100) << "compress ratios that are not powers of two";
  EXPECT_GE(far_block, 50) << "block ids near INT32_MAX";
  EXPECT_GE(wide_slot, 10) << "compressed slots past the int32 limit";
}

// Seeds 0 ... 4 take the edges members in turn; each scenario holds its class and passes on the
// reference (the oracle skips the groups of blocks past the cache, SPEC 5).
TEST(EdgesWorkload, EachMemberReachesItsClassAndTheReferencePasses) {
  const Workload edges = workload_by_name("edges");
  std::set<std::string> members;
  for (uint64_t seed = 0; seed < 5; ++seed) {
    const Scenario s = simulate(edges, seed, 40);
    const ScenarioConfig& c = s.config;
    members.insert(c.workload);
    size_t most_requests = 0;
    bool zero_first = false, far = false;
    for (const StepRecord& st : s.steps) {
      most_requests = std::max(most_requests, st.chunks.size());
      zero_first |= st.chunks.size() > 1 && st.chunks.front().length == 0;
      for (const ChunkRecord& chunk : st.chunks)
        for (int32_t block : chunk.blocks) far |= block >= c.num_compressed_blocks;
    }
    const std::string hint = c.workload + " (qsacheck simulate --workload edges --seed " + std::to_string(seed) + ")";
    if (c.workload == "edges:ratio") {
      EXPECT_FALSE(power_of_two(c.compress_ratio)) << hint;
    }
    if (c.workload == "edges:mrope-split") {
      ASSERT_TRUE(c.mrope_split.has_value()) << hint;
      ScenarioConfig proportional = c;
      proportional.mrope_split.reset();
      bool other_axis = false;  // some pair rotates by another axis than under the proportional split
      for (int64_t pair = 0; pair < c.rotary_dim / 2; ++pair)
        other_axis |= mrope_axis(pair, c.mrope_sections()) != mrope_axis(pair, proportional.mrope_sections());
      EXPECT_TRUE(other_axis) << hint;
    }
    if (c.workload == "edges:far-blocks") {
      EXPECT_TRUE(far) << hint;
      EXPECT_GT(int64_t{INT32_MAX - (1 << 24)} * c.storage_block_size(), int64_t{INT32_MAX}) << "slots past 2^31";
    }
    if (c.workload == "edges:many-requests") {
      EXPECT_GT(most_requests, 1024u) << hint;
    }
    if (c.workload == "edges:zero-first") {
      EXPECT_TRUE(zero_first) << hint;
    }
    reference::ReferenceBackend reference;
    const auto failure = engine::run_scenario(s, reference);
    EXPECT_FALSE(failure.has_value()) << hint << ": " << to_string(*failure);
  }
  EXPECT_EQ(members.size(), 5u);
}

TEST(EdgesWorkload, MropeSplitsReachTheEdgesOfTheSplitAndChangeSomePairsAxis) {
  // Over 60 seeds of the member: an empty axis and a full axis, each sums to rd / 2 and gives some
  // pair another axis than the proportional split does.
  Workload w = workload_by_name("edges");
  const Workload member = w.mix[1];
  bool empty_axis = false, full_axis = false;
  for (uint64_t seed = 0; seed < 60; ++seed) {
    const ScenarioConfig c = resolve_workload(member, seed).config;
    ASSERT_TRUE(c.mrope_split.has_value());
    const auto& s = *c.mrope_split;
    const int64_t hp = c.rotary_dim / 2;
    ASSERT_EQ(s[0] + s[1] + s[2], hp);
    ScenarioConfig proportional = c;
    proportional.mrope_split.reset();
    bool other_axis = false;
    for (int64_t pair = 0; pair < hp; ++pair)
      other_axis |= mrope_axis(pair, c.mrope_sections()) != mrope_axis(pair, proportional.mrope_sections());
    EXPECT_TRUE(other_axis) << "seed " << seed;
    empty_axis |= std::count(s.begin(), s.end(), 0) > 0;
    full_axis |= std::count(s.begin(), s.end(), hp) > 0;
  }
  EXPECT_TRUE(empty_axis);
  EXPECT_TRUE(full_axis);
}

}  // namespace
}  // namespace qsa::traces
