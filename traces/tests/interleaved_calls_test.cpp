// The calls a runner makes on a backend instance between valid steps (traces/interleaved_calls.hpp):
// each is valid, the step-status call ends in position-out-of-range on every workload's
// configuration, and the other-configuration call differs from the scenario's in every parameter
// it promises to change.

#include <gtest/gtest.h>


#include "qsa/reference/step_update.hpp"
#include "qsa/traces/interleaved_calls.hpp"
#include "qsa/traces/simulator.hpp"
#include "qsa/traces/workloads.hpp"
#include "qsa/validate.hpp"

namespace qsa::traces {
namespace {

StepOutput run_reference(const InterleavedStep& call, Status* status) {
  StepCaches caches = call.caches;
  StepOutput output = make_poisoned_step_output(call.input);
  Error error;
  *status = reference::step_update(call.input, &caches, &output, &error);
  EXPECT_EQ(*status, Status::kOk) << error;
  return output;
}

TEST(InterleavedCalls, OneCallBeforeEveryEighthStepOfVersionThree) {
  ScenarioConfig config;
  EXPECT_EQ(call_before_step(config, 0), CallBeforeStep::kRejected);
  EXPECT_EQ(call_before_step(config, 8), CallBeforeStep::kStepStatus);
  EXPECT_EQ(call_before_step(config, 16), CallBeforeStep::kRejected);
  EXPECT_EQ(call_before_step(config, 24), CallBeforeStep::kOtherConfiguration);
  EXPECT_EQ(call_before_step(config, 40), CallBeforeStep::kStepStatus);
  EXPECT_EQ(call_before_step(config, 7), CallBeforeStep::kNone);
  config.content_version = 2;  // recorded traces replay under their own version: no calls
  EXPECT_EQ(call_before_step(config, 0), CallBeforeStep::kNone);
  EXPECT_EQ(call_before_step(config, 8), CallBeforeStep::kNone);
}

TEST(InterleavedCalls, EveryWorkloadsCallsAreValidAndTheStatusCallReportsPositionOutOfRange) {
  for (const std::string& name : workload_names()) {
    const Workload workload = workload_by_name(name);
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      const ScenarioConfig config = Simulator(workload, seed).config();
      SCOPED_TRACE(name + " seed " + std::to_string(seed) + " (" + config.workload + ")");
      Status status = Status::kOk;
      InterleavedCalls calls(config);
      const InterleavedStep status_call = calls.step_status_call(8);
      EXPECT_EQ(status_call.input.config.head_dim, config.head_dim);
      EXPECT_EQ(status_call.input.config.compress_ratio, config.compress_ratio);
      EXPECT_TRUE(status_call.input.config.ring_positions);
      EXPECT_EQ(run_reference(status_call, &status).step_status, StepStatus::kPositionOutOfRange);

      const InterleavedStep other = calls.other_configuration_call(24);
      const StepConfig& o = other.input.config;
      EXPECT_NE(o.head_dim, config.head_dim);
      EXPECT_NE(o.rotary_dim, config.rotary_dim);
      EXPECT_NE(o.num_heads, config.num_heads);
      EXPECT_NE(o.compress_ratio, config.compress_ratio);
      EXPECT_NE(o.store_dtype, config.store_dtype);
      EXPECT_NE(o.ring_positions, config.mrope);
      EXPECT_EQ(run_reference(other, &status).step_status, StepStatus::kOk);
      Error error;
      EXPECT_EQ(validate(other.input.compressed_metadata_input(), &error), Status::kOk) << error;
    }
  }
}

}  // namespace
}  // namespace qsa::traces
