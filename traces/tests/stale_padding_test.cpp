// Content version 3's stale padding (traces/stale_padding.hpp) against the field table's roles
// (qsa/input_fields.hpp): every value it writes is legal, and the inert ones change no cache byte,
// no metadata output and no live row's q_out, step after step of simulated scenarios.

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "qsa/reference/metadata.hpp"
#include "qsa/reference/step_update.hpp"
#include "qsa/engine/scenario_runner.hpp"
#include "qsa/traces/scenario_state.hpp"
#include "qsa/traces/simulator.hpp"
#include "qsa/traces/workloads.hpp"
#include "qsa/validate.hpp"

namespace qsa::traces {
namespace {

bool stale_same_bytes(const CacheBytes& a, const CacheBytes& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0;
}

MetadataOutput stale_metadata_of(const MetadataInput& in) {
  MetadataOutput out;
  Error error;
  EXPECT_EQ(reference::build_metadata(in, &out, &error), Status::kOk) << error;
  return out;
}

bool stale_same_metadata(const MetadataOutput& a, const MetadataOutput& b) {
  return a.token_to_req == b.token_to_req && a.logical_positions == b.logical_positions &&
         a.visible_blocks == b.visible_blocks && a.slot_mapping == b.slot_mapping &&
         a.k_work_metadata == b.k_work_metadata;
}

// Steps a scenario under content versions 2 (zeros on the roles past live) and 3 (stale values)
// side by side on the reference; returns the number of steps whose inputs differed.
int64_t stale_compare_versions(const Scenario& scenario, const std::string& replay) {
  ScenarioConfig two = scenario.config;
  two.content_version = 2;
  ScenarioConfig three = scenario.config;
  three.content_version = 3;
  ScenarioState a(two);
  ScenarioState b(three);
  StepCaches ca = make_caches(two, 0);
  StepCaches cb = make_caches(three, 0);
  int64_t differing = 0;
  for (size_t i = 0; i < scenario.steps.size(); ++i) {
    const StepRecord& record = scenario.steps[i];
    const auto index = static_cast<int64_t>(i);
    for (const ChunkRecord& chunk : record.chunks) {
      if (!chunk.prefilled) continue;
      const std::vector<StepInput> pa = a.prefill_inputs(chunk, index);
      const std::vector<StepInput> pb = b.prefill_inputs(chunk, index);
      for (size_t k = 0; k < pa.size(); ++k) {
        StepOutput oa, ob;
        Error error;
        EXPECT_EQ(reference::step_update(pa[k], &ca, &oa, &error), Status::kOk) << error;
        EXPECT_EQ(reference::step_update(pb[k], &cb, &ob, &error), Status::kOk) << error;
      }
    }
    const StepInput ia = a.step_input(record, index);
    const StepInput ib = b.step_input(record, index);
    const bool differs = ia.keys != ib.keys || ia.positions != ib.positions ||
                         ia.batch.common_slot_mapping != ib.batch.common_slot_mapping ||
                         ia.block_table.storage != ib.block_table.storage ||
                         ia.ring_block_table.storage != ib.ring_block_table.storage;
    differing += differs ? 1 : 0;
    StepOutput oa = make_poisoned_step_output(ia);
    StepOutput ob = make_poisoned_step_output(ib);
    Error error;
    EXPECT_EQ(reference::step_update(ia, &ca, &oa, &error), Status::kOk) << error << "\n" << replay;
    EXPECT_EQ(reference::step_update(ib, &cb, &ob, &error), Status::kOk)
        << "step " << i << ": a stale value is not legal: " << error << "\n"
        << replay;
    EXPECT_TRUE(stale_same_bytes(ca.compressed.bytes, cb.compressed.bytes)) << "step " << i << "\n" << replay;
    EXPECT_TRUE(stale_same_bytes(ca.ring.bytes, cb.ring.bytes)) << "step " << i << "\n" << replay;
    EXPECT_EQ(oa.step_status, ob.step_status) << "step " << i;
    const size_t live = static_cast<size_t>(ia.batch.num_mapped_tokens()) * oa.q_out.size() /
                        static_cast<size_t>(std::max<int64_t>(1, ia.num_tokens()));
    EXPECT_TRUE(std::equal(oa.q_out.begin(), oa.q_out.begin() + static_cast<std::ptrdiff_t>(live), ob.q_out.begin()))
        << "step " << i << ": a live row's q_out depends on padding\n"
        << replay;
    EXPECT_TRUE(stale_same_metadata(stale_metadata_of(ia.compressed_metadata_input()),
                                    stale_metadata_of(ib.compressed_metadata_input())))
        << "step " << i;
    EXPECT_TRUE(
        stale_same_metadata(stale_metadata_of(ia.ring_metadata_input()), stale_metadata_of(ib.ring_metadata_input())))
        << "step " << i;
    if (::testing::Test::HasFailure()) return differing;
    a.apply(record, index);
    b.apply(record, index);
  }
  return differing;
}

TEST(StalePadding, InertValuesChangeNoCacheByteNoMetadataAndNoLiveQuery) {
  for (const char* workload : {"default", "step-edges"}) {
    int64_t differing = 0;
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      const Scenario s = simulate(workload_by_name(workload), seed, 60);
      const std::string replay = std::string("simulate(workload_by_name(\"") + workload + "\"), " +
                                 std::to_string(seed) + ", 60), versions 2 and 3";
      differing += stale_compare_versions(s, replay);
      if (HasFailure()) return;
    }
    EXPECT_GT(differing, 0) << workload << ": version 3 wrote no stale value in 180 steps";
  }
}

}  // namespace
}  // namespace qsa::traces
