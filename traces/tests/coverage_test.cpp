// coverage_of (traces/scenario.hpp) against a scenario built by hand: every figure of
// docs/workloads.md "Coverage figures" is derived below from the steps, position by position, not
// copied from a run. Then the simulator's figures against an independent count.

#include <set>

#include <gtest/gtest.h>

#include "qsa/traces/simulator.hpp"
#include "qsa/traces/workloads.hpp"

namespace qsa::traces {
namespace {

ChunkRecord chunk(int64_t request, int64_t family, int64_t prompt, int64_t start, int64_t length, int64_t accepted,
                  std::vector<int32_t> blocks, std::vector<int64_t> negative = {}) {
  return ChunkRecord{request, family, prompt, start, length, accepted, std::move(blocks), 0, std::move(negative)};
}

// C = 4, B = 16, R = 8. Four requests:
//   A (0, family 1, prompt 40): prefill 0..31, 32..39; a decode 40..43 committing 40, 41; a decode
//     42..45 committing all; finishes.
//   B (1, family 1, prompt 40): prefix hit at 32 on A's blocks 2, 5 (written by A in step 0);
//     prefill 32..39, a decode 40..43; preempted after step 2; recomputed 0..43 on new blocks.
//   C (2, no family, prompt 20): prefill 0..19, a decode 20..23 committing 20 only; preempted
//     after step 1 (its chunk of that step starts at 20 on its own block: no hit); recomputed
//     0..20, then a decode 21..24 committing 21..23.
//   D (3, family 2, prompt 20): first chunk at 16 on block 8, which no request of the scenario
//     wrote (its peer cut away, as the shrinker does): a hit.
Scenario hand_built() {
  Scenario s;
  s.config.compress_ratio = 4;
  s.config.block_size = 16;
  s.config.num_speculative_tokens = 3;
  s.config.ring_capacity = 8;
  StepRecord s0;
  s0.chunks = {chunk(0, 1, 40, 0, 32, 32, {2, 5}), chunk(2, -1, 20, 0, 20, 20, {1, 3})};
  s0.padding_tokens = 4;
  StepRecord s1;
  s1.chunks = {chunk(2, -1, 20, 20, 4, 1, {1, 3}, {1, 3}), chunk(0, 1, 40, 32, 8, 8, {2, 5, 7}),
               chunk(1, 1, 40, 32, 8, 8, {2, 5, 9})};
  s1.padded_requests = 1;
  s1.padding_tokens = 2;
  s1.preempted = {2};
  StepRecord s2;
  s2.chunks = {chunk(0, 1, 40, 40, 4, 2, {2, 5, 7}, {3}), chunk(1, 1, 40, 40, 4, 4, {2, 5, 9}),
               chunk(2, -1, 20, 0, 21, 21, {4, 6})};
  s2.preempted = {1};
  StepRecord s3;
  s3.chunks = {chunk(0, 1, 40, 42, 4, 4, {2, 5, 7}), chunk(2, -1, 20, 21, 4, 3, {4, 6}),
               chunk(1, 1, 40, 0, 44, 44, {10, 11, 12}), chunk(3, 2, 20, 16, 4, 4, {8, 13})};
  s3.finished = {0};
  s.steps = {s0, s1, s2, s3};
  return s;
}

TEST(Coverage, EveryFigureCountsWhatTheHandBuiltScenarioDid) {
  const Coverage c = coverage_of(hand_built());
  EXPECT_EQ(c.steps, 4);
  // N per step: 32 + 20 + 4 padding = 56; 4 + 8 + 8 + 2 = 22; 4 + 4 + 21 = 29; 4 + 4 + 44 + 4 = 56.
  EXPECT_EQ(c.rows, 56 + 22 + 29 + 56);
  EXPECT_EQ(c.requests, 4);
  // Committed positions p with (p + 1) mod 4 = 0: A commits 0..45 (3, 7, ..., 43: 11); C 0..19
  // (5), 20 (0), again 0..20 (5), 21..23 (1): 11; B 32..39 (2), 40..43 (1), again 0..43 (11):
  // 14; D 16..19 (1).
  EXPECT_EQ(c.groups_closed, 11 + 11 + 14 + 1);
  // Committed p >= 8 with p mod 8 = 0: A 8, 16, 24, 32, 40 (5); C 8, 16 twice (4); B 32, 40,
  // then 8, 16, 24, 32, 40 (7); D 16 (1). (The old count, the committed length reaching 8, 16,
  // ... per chunk, gave 16: it counts each first fill of 8 rows and misses a chunk's own start.)
  EXPECT_EQ(c.ring_wraps, 5 + 4 + 7 + 1);
  // length - accepted: C in step 1 (4 - 1), A in step 2 (4 - 2), C in step 3 (4 - 3).
  EXPECT_EQ(c.drafts_rejected, 3 + 2 + 1);
  EXPECT_EQ(c.preemptions, 2);
  // B in step 1 (block 5, logical block (32 - 1) / 16 = 1, written by A) and D in step 3 (block 8,
  // written by nobody). Not: A and C continuing on their own blocks, C in step 1 and B in step 2
  // (their last chunks before a preemption: the old count, which forgot a request when the step
  // that preempted it began, took both for hits and gave 4), the recomputes (start 0).
  EXPECT_EQ(c.prefix_hits, 2);
  EXPECT_EQ(c.padded_steps, 2);  // step 0 (padding tokens), step 1 (a padded request and tokens)
  EXPECT_EQ(c.negative_common_slots, 3);
  EXPECT_EQ(c.mrope_steps, 0);
  EXPECT_EQ(c.fp8_steps, 0);
}

TEST(Coverage, MropeAndFp8StepsCountEveryStepOfSuchAScenario) {
  Scenario s = hand_built();
  s.config.mrope = true;
  s.config.store_dtype = StoreDtype::kFp8E4m3;
  const Coverage c = coverage_of(s);
  EXPECT_EQ(c.mrope_steps, 4);
  EXPECT_EQ(c.fp8_steps, 4);
}

TEST(Coverage, ARequestsOwnContinuationAfterAPreemptionIsNoHit) {
  // One request, no peer: prefill 0..15, preempted, recomputed 0..15, then 16..31. Its chunks at
  // 16 continue on its own block (written in the step before): no hit at all.
  Scenario s;
  s.config.block_size = 16;
  StepRecord a, b, c;
  a.chunks = {chunk(0, -1, 32, 0, 16, 16, {4})};
  a.preempted = {0};
  b.chunks = {chunk(0, -1, 32, 0, 16, 16, {9})};
  c.chunks = {chunk(0, -1, 32, 16, 16, 16, {9, 2})};
  s.steps = {a, b, c};
  EXPECT_EQ(coverage_of(s).prefix_hits, 0);
  EXPECT_EQ(coverage_of(s).preemptions, 1);
}

// The simulator recomputes a preempted request from 0 and takes a hit only at a request's first
// admission, so its hits are exactly the requests whose first chunk starts past 0.
TEST(Coverage, SimulatedHitsAreTheRequestsWhoseFirstChunkStartsPastZero) {
  for (const std::string name : {"preemption-storm", "prefix-sharing", "default"}) {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      const Scenario s = simulate(workload_by_name(name), seed, 200);
      // A first chunk past 0 is a hit; a recompute's is one unless it reads only its own old blocks.
      std::set<int64_t> seen, preempted;
      int64_t first_past_zero = 0, restarts_past_zero = 0;
      for (const StepRecord& st : s.steps) {
        for (const ChunkRecord& ch : st.chunks) {
          const bool first = seen.insert(ch.request).second;
          const bool restart = preempted.erase(ch.request) > 0;
          if (first && ch.start > 0) ++first_past_zero;
          if (restart && ch.start > 0) ++restarts_past_zero;
        }
        preempted.insert(st.preempted.begin(), st.preempted.end());
      }
      EXPECT_GE(coverage_of(s).prefix_hits, first_past_zero) << name << " seed " << seed;
      EXPECT_LE(coverage_of(s).prefix_hits, first_past_zero + restarts_past_zero) << name << " seed " << seed;
    }
  }
}

}  // namespace
}  // namespace qsa::traces
