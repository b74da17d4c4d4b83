#include "support/hand_scenarios.hpp"

namespace qsa::testing {
namespace {

traces::Scenario build_hand_scenario(bool mrope, StoreDtype dtype, bool zero_length_request) {
  traces::Scenario s;
  traces::ScenarioConfig& c = s.config;
  // Seed 13 gives the key norm weight of element 6 (a key's position digit) |1 + w| = 132, so
  // normed keys exceed 448 and fp8 saturation is exercised (seed 11's was 49: nothing saturated).
  c.seed = 13;
  c.workload = "hand";
  c.compress_ratio = 4;
  c.block_size = 16;
  c.num_speculative_tokens = 3;
  c.ring_capacity = 8;
  c.head_dim = 32;
  c.rotary_dim = 16;
  c.num_heads = 2;
  c.mrope = mrope;
  c.store_dtype = dtype;
  c.max_position = 256;
  c.num_compressed_blocks = 16;
  c.num_ring_blocks = 4;

  using traces::ChunkRecord;
  using traces::StepRecord;
  // Request 0 (family 1, prompt 37): prefill 0..19, 20..36; then decodes with drafts.
  // Request 1 (family 1, prompt 37): prefix hit at 32 on request 0's first two blocks.
  // Request 2 (no family, prompt 9): prefill, decodes, preempted, recomputed.
  auto chunk = [](int64_t req, int64_t family, int64_t prompt, int64_t start, int64_t length, int64_t accepted,
                  std::vector<int32_t> blocks, int32_t ring, std::vector<int64_t> negative = {}) {
    return ChunkRecord{req, family, prompt, start, length, accepted, std::move(blocks), ring, std::move(negative)};
  };
  StepRecord s0;
  s0.reorder_batch_threshold = 4;
  s0.chunks = {chunk(0, 1, 37, 0, 20, 20, {3, 7}, 1), chunk(2, -1, 9, 0, 9, 9, {5}, 2)};
  s0.padding_tokens = 3;
  StepRecord s1;
  s1.reorder_batch_threshold = 4;
  s1.chunks = {chunk(2, -1, 9, 9, 4, 2, {5}, 2), chunk(0, 1, 37, 20, 17, 17, {3, 7, 9}, 1)};
  StepRecord s2;  // request 2 accepted 1 + 1 drafts: positions 9, 10 committed; closing row 11 rejected
  s2.reorder_batch_threshold = 4;
  s2.chunks = {chunk(2, -1, 9, 11, 4, 4, {5}, 2, {0}), chunk(0, 1, 37, 37, 4, 1, {3, 7, 9}, 1),
               chunk(1, 1, 37, 32, 5, 5, {3, 7, 11}, 3)};
  s2.padded_requests = 1;
  s2.padding_tokens = 3;
  StepRecord s3;
  s3.reorder_batch_threshold = 4;
  s3.chunks = {chunk(2, -1, 9, 15, 4, 3, {5, 6}, 2, {0}), chunk(0, 1, 37, 38, 4, 4, {3, 7, 9}, 1),
               chunk(1, 1, 37, 37, 4, 2, {3, 7, 11}, 3)};
  s3.preempted = {2};
  StepRecord s4;
  s4.reorder_batch_threshold = 4;
  s4.chunks = {chunk(0, 1, 37, 42, 4, 4, {3, 7, 9}, 1), chunk(1, 1, 37, 39, 4, 4, {3, 7, 11}, 3),
               chunk(2, -1, 9, 0, 18, 18, {12, 13}, 0)};
  StepRecord s5;
  s5.reorder_batch_threshold = 4;
  s5.chunks = {chunk(0, 1, 37, 46, 4, 2, {3, 7, 9, 10}, 1), chunk(1, 1, 37, 43, 4, 1, {3, 7, 11}, 3),
               chunk(2, -1, 9, 18, 4, 4, {12, 13}, 0)};
  s5.finished = {1};
  s.steps = {s0, s1, s2, s3, s4, s5};
  // Long decodes of request 0 wrap the ring several times.
  int64_t l0 = 48;
  int64_t l2 = 22;
  for (int i = 0; i < 10; ++i) {
    StepRecord st;
    st.reorder_batch_threshold = 4;
    const int64_t a0 = 1 + (i * 7) % 4;
    const int64_t a2 = 1 + (i * 5) % 4;
    st.chunks = {chunk(0, 1, 37, l0, 4, a0, {3, 7, 9, 10, 14}, 1),
                 chunk(2, -1, 9, l2, 4, a2, {12, 13, 15}, 0, {i % 4})};
    st.padded_requests = i % 2;
    st.padding_tokens = 4 * (i % 2);
    l0 += a0;
    l2 += a2;
    s.steps.push_back(st);
  }
  // Now l0 = 73, l2 = 45. A tail for the batch shapes the steps above lack (each shows a planted
  // bug of docs/planted-bugs.md): a one-row decode that closes no group, a chunked prefill whose second
  // chunk starts inside a group (s mod C = 2) and is longer than R, so its commit overwrites the
  // ring rows its first group reads, and a uniform decode batch with token-only padding (N != NR * q0).
  StepRecord t0;  // request 3 (prompt 30) arrives
  t0.reorder_batch_threshold = 4;
  t0.chunks = {chunk(0, 1, 37, l0, 1, 1, {3, 7, 9, 10, 14}, 1), chunk(3, -1, 30, 0, 10, 10, {5, 6}, 3)};
  if (zero_length_request) t0.chunks.insert(t0.chunks.begin() + 1, chunk(2, -1, 9, l2, 0, 0, {12, 13, 15}, 0));
  StepRecord t1;  // request 3's group 2 (8..11) reads 8, 9 from ring rows 0, 1; its commit rewrites rows 0..7
  t1.reorder_batch_threshold = 4;
  t1.chunks = {chunk(0, 1, 37, l0 + 1, 4, 2, {3, 7, 9, 10, 14}, 1), chunk(3, -1, 30, 10, 18, 18, {5, 6}, 3),
               chunk(2, -1, 9, l2, 4, 3, {12, 13, 15, 8}, 0)};
  t1.padding_tokens = 2;
  StepRecord t2;  // two decodes of 4 rows and 3 padding tokens, no padded request: split rule 3
  t2.reorder_batch_threshold = 4;
  t2.chunks = {chunk(0, 1, 37, l0 + 3, 4, 4, {3, 7, 9, 10, 14}, 1), chunk(3, -1, 30, 28, 4, 3, {5, 6}, 3)};
  t2.padding_tokens = 3;
  s.steps.insert(s.steps.end(), {t0, t1, t2});
  return s;
}

}  // namespace

traces::Scenario hand_scenario(bool mrope, StoreDtype dtype) { return build_hand_scenario(mrope, dtype, false); }

traces::Scenario hand_scenario_with_zero_length_request(bool mrope, StoreDtype dtype) {
  return build_hand_scenario(mrope, dtype, true);
}

}  // namespace qsa::testing
