#pragma once
// One test body for the calls between steps that a kernel's declared capabilities exclude, through
// every adapter of a kernel outside the tree (a plugin in process, the same plugin isolated in a
// worker): the other-configuration call's ring and passthrough metadata, before step 24, lie
// outside a compressed-only kernel's capabilities; they are sent, the adapter declines them without
// calling the kernel, and the run goes on and counts them (docs/planted-bugs.md, note 18).

#include <gtest/gtest.h>

#include <string>

#include "qsa/backend_interface.hpp"
#include "qsa/engine/scenario_runner.hpp"
#include "qsa/traces/scenario.hpp"

namespace qsa::backends {

inline void expect_excluded_calls_declined(Backend& backend, const traces::Scenario& scenario) {
  std::string reason;
  ASSERT_EQ(backend.probe(&reason), Status::kOk) << reason;
  ASSERT_GE(scenario.steps.size(), 25u) << "the other-configuration call comes before step 24";
  engine::InputSpaceCoverage coverage;
  engine::RunOptions options;
  options.input_space = &coverage;
  const auto failure = engine::run_scenario(scenario, backend, options);
  EXPECT_FALSE(failure) << engine::to_string(*failure);
  EXPECT_EQ(coverage.at(engine::InputClassId::kCallDeclinedBeforeStep).count, 1);
}

}  // namespace qsa::backends
