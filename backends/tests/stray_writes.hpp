#pragma once
// One test body for the planted stray writes of every adapter of a kernel outside the tree (the
// host example plugin's variants, the NumPy worker's --bug): SPEC 7.5 is reported at the step of
// the write, for a row no step names and for a row the next step rewrites (which a comparison
// every few steps would never see).

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

#include "qsa/backend_interface.hpp"
#include "qsa/engine/scenario_runner.hpp"

namespace qsa::backends {

// The first step from `from` on with a decode the planted ring write can use (0 < q < R, its ring
// block in the cache): where stray-write-row-rewritten-later writes.
inline int64_t first_decode_step(const traces::Scenario& scenario, int64_t from) {
  for (int64_t i = from; i < static_cast<int64_t>(scenario.steps.size()); ++i)
    for (const traces::ChunkRecord& c : scenario.steps[static_cast<size_t>(i)].chunks)
      if (c.length > 0 && c.length < scenario.config.ring_capacity && c.ring_block >= 0 &&
          c.ring_block < scenario.config.num_ring_blocks)
        return i;
  return -1;
}

// `make(variant)` builds the backend with the planted write named `variant`; both fire from the
// third step update on (examples/plugins/host, examples/workers/numpy).
inline void expect_stray_writes_caught_at_their_step(
    const traces::Scenario& scenario, const std::function<std::unique_ptr<Backend>(const std::string&)>& make) {
  const int64_t decode = first_decode_step(scenario, 2);
  ASSERT_GE(decode, 2);
  const struct {
    const char* variant;
    const char* field;
    int64_t step;
  } cases[] = {{"stray-write-unused-row", "cache.compressed", 2}, {"stray-write-row-rewritten-later", "cache.ring", decode}};
  for (const auto& c : cases) {
    const std::unique_ptr<Backend> backend = make(c.variant);
    std::string reason;
    ASSERT_EQ(backend->probe(&reason), Status::kOk) << reason;
    const auto failure = engine::run_scenario(scenario, *backend);
    ASSERT_TRUE(failure) << backend->name();
    EXPECT_EQ(failure->check, engine::Check::kWrites) << backend->name() << ": " << engine::to_string(*failure);
    EXPECT_EQ(failure->field, c.field) << backend->name() << ": " << engine::to_string(*failure);
    EXPECT_EQ(failure->step, c.step) << backend->name() << ": " << engine::to_string(*failure);
  }
}

}  // namespace qsa::backends
