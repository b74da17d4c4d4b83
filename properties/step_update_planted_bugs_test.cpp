// Planted bugs: each compile-time variant of the step-update kernel with one realistic bug must be
// caught by the GPU scenario differential (the scenario runner against the reference and the
// model oracle), on the scenario that has the feature the bug needs.

#include <gtest/gtest.h>

#include <iostream>

#include "qsa/backends/planted.hpp"
#include "qsa/engine/scenario_runner.hpp"
#include "qsa/traces/simulator.hpp"
#include "qsa/traces/workloads.hpp"
#include "support/gpu_guard.hpp"
#include "support/hand_scenarios.hpp"

namespace qsa {
namespace {

std::vector<traces::Scenario> scenarios_for(const backends::PlantedBug& bug) {
  const bool mrope = bug.needs == "mrope";
  const StoreDtype dtype = bug.needs == "fp8" ? StoreDtype::kFp8E4m3 : StoreDtype::kBf16;
  std::vector<traces::Scenario> out = {testing::hand_scenario(mrope, dtype)};
  if (bug.needs == "ring-block-past-cache") {
    traces::Scenario s = testing::hand_scenario();
    for (traces::StepRecord& step : s.steps)
      for (traces::ChunkRecord& chunk : step.chunks)
        if (chunk.request == 0)
          chunk.ring_block = static_cast<int32_t>(s.config.num_ring_blocks);  // one past the last block
    out = {s};
  }
  out.push_back(traces::simulate(
      traces::workload_by_name(mrope || dtype == StoreDtype::kFp8E4m3 ? "mrope-fp8" : "default"), 7, 200));
  if (bug.needs == "many-rows") {  // a rounding-order bug shows on about one element in 2^16
    out.push_back(traces::simulate(traces::workload_by_name("default"), 7, 1000));
    out.push_back(traces::simulate(traces::workload_by_name("azure-conv"), 3, 600));
    // D = 128, four heads: a reversed cross-lane tree changes an output in about 2 of 10 000
    // head rows there, against 1 in 100 000 at the default D = 32 in the halves layout.
    out.push_back(traces::simulate(traces::workload_by_name("production"), 3, 600));
  }
  return out;
}

class StepUpdateCudaPlantedBugs : public ::testing::TestWithParam<backends::PlantedBug> {};

TEST_P(StepUpdateCudaPlantedBugs, IsCaughtByTheScenarioDifferential) {
  QSA_SKIP_WITHOUT_GPU();
  const backends::PlantedBug& bug = GetParam();
  // Built for D = 32 and 128 and the fast layout only: the calls of another configuration between
  // steps would be refused (invalid-input), which is no catch of the bug.
  engine::RunOptions options;
  options.calls_between_steps = false;
  for (const traces::Scenario& s : scenarios_for(bug)) {
    auto backend = backends::make_planted_backend(bug.name);
    ASSERT_NE(backend, nullptr) << bug.name;
    if (const auto failure = engine::run_scenario(s, *backend, options)) {
      std::cout << "KILLED " << bug.name << " on " << s.config.workload << ": " << engine::to_string(*failure) << "\n";
      return;
    }
  }
  ADD_FAILURE() << "SURVIVED " << bug.name << ": " << bug.description;
}

// The control of skips-grid-wait: the same chain (PDL, the metadata kernel holding its writes back
// after its trigger) with the shipped step kernel, whose wait is all that orders the two.
TEST(StepUpdateCudaProgrammaticLaunch, TheShippedStepKernelWaitsForAMetadataKernelThatHoldsItsWrites) {
  QSA_SKIP_WITHOUT_GPU();
  for (const backends::PlantedBug& bug : backends::planted_cuda_step_bugs()) {
    if (bug.needs != "pdl") continue;
    for (const traces::Scenario& s : scenarios_for(bug)) {
      auto backend = backends::make_planted_backend("cuda-pdl-behind-held-metadata");
      ASSERT_NE(backend, nullptr);
      if (const auto failure = engine::run_scenario(s, *backend))
        ADD_FAILURE() << s.config.workload << ": " << engine::to_string(*failure);
    }
    return;
  }
  FAIL() << "no planted variant needs \"pdl\"";
}

INSTANTIATE_TEST_SUITE_P(Variants, StepUpdateCudaPlantedBugs, ::testing::ValuesIn(backends::planted_cuda_step_bugs()),
                         [](const ::testing::TestParamInfo<backends::PlantedBug>& param_info) {
                           std::string name;
                           for (char ch : param_info.param.name.substr(18))
                             name += ch == '-' ? '_' : ch;  // drop "cuda-planted-step-"
                           return name;
                         });

}  // namespace
}  // namespace qsa
