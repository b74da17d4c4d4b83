#pragma once
// One test body for every adapter of a kernel outside the tree (plugin, worker): a scenario's
// steps on caches padded between rows and blocks, with column-major block tables, must leave the
// same caches and q_out as the reference's; qsacheck's own copy of the ring is edited now and then
// (the adapter must send it again).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "qsa/backend_interface.hpp"
#include "qsa/reference/reference_backend.hpp"
#include "qsa/engine/scenario_runner.hpp"
#include "qsa/traces/scenario_state.hpp"

namespace qsa::backends {

inline void expect_reference_results_on_padded_caches(const traces::Scenario& scenario, Backend& backend) {
  traces::ScenarioState state(scenario.config);
  StepCaches ours = traces::make_poisoned_caches(scenario.config);
  for (CacheBuffer* cache : {&ours.ring, &ours.compressed}) {  // pad rows by 3 and blocks by 5 elements
    CacheLayout& l = cache->layout;
    l.row_stride = l.width + 3;
    l.block_stride = l.rows * l.row_stride + 5;
    cache->bytes.assign(static_cast<size_t>(l.size_bytes()), kPoisonByte);
  }
  StepCaches theirs = ours;
  reference::ReferenceBackend reference;
  for (size_t i = 0; i < scenario.steps.size(); ++i) {
    StepInput input = state.step_input(scenario.steps[i], static_cast<int64_t>(i));
    std::vector<std::vector<int32_t>> rows;
    for (int64_t r = 0; r < input.block_table.rows; ++r) {
      rows.emplace_back();
      for (int64_t c = 0; c < input.block_table.cols; ++c) rows.back().push_back(input.block_table.at(r, c));
    }
    input.block_table = BlockTable::column_major(rows);
    StepOutput expected = make_poisoned_step_output(input);
    StepOutput actual = expected;
    Error error;
    if (i % 7 == 3) theirs.ring.bytes[5] ^= 1, ours.ring.bytes[5] ^= 1;
    ASSERT_EQ(reference.step_update(input, &ours, &expected, &error), Status::kOk) << to_string(error);
    ASSERT_EQ(backend.step_update(input, &theirs, &actual, &error), Status::kOk) << to_string(error);
    ASSERT_EQ(expected.q_out, actual.q_out) << "step " << i;
    ASSERT_EQ(ours.ring.bytes, theirs.ring.bytes) << "step " << i;
    ASSERT_EQ(ours.compressed.bytes, theirs.compressed.bytes) << "step " << i;
    state.apply(scenario.steps[i], static_cast<int64_t>(i));
  }
}

}  // namespace qsa::backends
