// A pre-filled context (ChunkRecord::prefilled, docs/workloads.md "Pre-filled context"): a
// scenario that starts a request with positions already in the caches steps exactly as the
// scenario that ran the prefill does from there on (digests of every later step, whole caches at
// the end), the oracle holds the pre-filled groups to SPEC 7.1, the rule is enforced, and the
// simulator's --prefilled-context replays a log with every request starting pre-filled.

#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

#include <gtest/gtest.h>

#include "qsa/reference/reference_backend.hpp"
#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/request_replay.hpp"
#include "qsa/traces/scenario_file.hpp"
#include "qsa/engine/step_loop.hpp"
#include "qsa/engine/scenario_runner.hpp"
#include "qsa/traces/simulator.hpp"
#include "support/scenario_rules.hpp"

namespace qsa::traces {
namespace {

ChunkRecord chunk(int64_t request, int64_t prompt, int64_t start, int64_t length, int64_t accepted,
                  std::vector<int32_t> blocks, int32_t ring) {
  ChunkRecord c;
  c.request = request;
  c.prompt_len = prompt;
  c.start = start;
  c.length = length;
  c.accepted = accepted;
  c.blocks = std::move(blocks);
  c.ring_block = ring;
  return c;
}

StepRecord step_of(std::vector<ChunkRecord> chunks, int64_t threshold = 4) {
  StepRecord s;
  s.chunks = std::move(chunks);
  s.reorder_batch_threshold = threshold;
  return s;
}

ScenarioConfig small_config(bool mrope, StoreDtype dtype) {
  ScenarioConfig c;  // C 4, B 16, 3 drafts, R 8, D 32, rd 16, HQ 2
  c.mrope = mrope;
  c.store_dtype = dtype;
  c.max_position = 256;
  c.num_compressed_blocks = 12;
  c.num_ring_blocks = 4;
  c.max_num_batched_tokens = 16;  // the prefill below runs in pieces of 16 rows
  return c;
}

// Request 2 (prompt 12) runs and finishes in steps 0-2, while request 0 (prompt 45, blocks 5 2 7 9,
// ring block 1) prefills 37 positions in three chunks; then, with request 1 (prompt 10) arriving:
// the rest of request 0's prompt, decodes with rejected drafts (whose keys depend on the step), and
// request 1's decode. `prefilled`: request 0 is left out of steps 0-2 and its chunk of step 3
// starts pre-filled at 37.
Scenario two_requests(bool mrope, StoreDtype dtype, bool prefilled) {
  Scenario s;
  s.config = small_config(mrope, dtype);
  const std::vector<int32_t> r0 = {5, 2, 7, 9};
  // Split unlike the pre-fill's pieces of 16 rows: the caches do not depend on the split.
  const ChunkRecord prefill[3] = {chunk(0, 45, 0, 10, 10, r0, 1), chunk(0, 45, 10, 17, 17, r0, 1),
                                  chunk(0, 45, 27, 10, 10, r0, 1)};
  const ChunkRecord other[3] = {chunk(2, 12, 0, 6, 6, {4}, 2), chunk(2, 12, 6, 6, 6, {4}, 2),
                                chunk(2, 12, 12, 4, 2, {4}, 2)};
  for (int i = 0; i < 3; ++i) {
    s.steps.push_back(prefilled ? step_of({other[i]}) : step_of({other[i], prefill[i]}));
    if (i == 2) s.steps.back().finished = {2};
  }
  ChunkRecord rest = chunk(0, 45, 37, 8, 8, r0, 1);
  rest.prefilled = prefilled;
  s.steps.push_back(step_of({rest, chunk(1, 10, 0, 10, 10, {3}, 0)}));
  s.steps.push_back(step_of({chunk(0, 45, 45, 4, 2, r0, 1), chunk(1, 10, 10, 4, 4, {3}, 0)}));
  s.steps.push_back(step_of({chunk(0, 45, 47, 4, 4, r0, 1)}));
  s.steps.push_back(step_of({chunk(0, 45, 51, 1, 1, r0, 1), chunk(1, 10, 14, 2, 1, {3}, 0)}));
  return s;
}

struct Stepped {
  std::optional<engine::RunFailure> failure;
  std::vector<StepDigest> digests;
  StepCaches caches;
};

Stepped run(const Scenario& s) {
  reference::ReferenceBackend reference;
  engine::RunOptions options;
  options.compute_digests = true;
  options.sweep_every = 1;  // every live request's every group, after every step
  engine::ScenarioRunner runner(s.config, reference, options);
  Stepped r;
  engine::StepObserver observer;
  observer.after_step = [&](int64_t, const StepRecord&, const engine::ScenarioRunner& at, bool failed) {
    if (!failed) r.digests.push_back(at.last_digest());
  };
  r.failure = engine::run_steps(runner, s.steps, observer).failure;
  if (r.failure) return r;
  r.caches = runner.caches();
  return r;
}

TEST(PrefilledContext, LaterStepsEqualTheScenarioThatRanThePrefill) {
  for (const bool mrope : {false, true})
    for (const StoreDtype dtype : {StoreDtype::kBf16, StoreDtype::kFp8E4m3}) {
      SCOPED_TRACE(std::string("mrope ") + (mrope ? "on" : "off") + ", " + qsa::to_string(dtype));
      const Stepped full = run(two_requests(mrope, dtype, false));
      const Stepped prefilled = run(two_requests(mrope, dtype, true));
      ASSERT_FALSE(full.failure) << to_string(*full.failure);
      ASSERT_FALSE(prefilled.failure) << to_string(*prefilled.failure);
      ASSERT_EQ(full.digests.size(), 7u);
      ASSERT_EQ(prefilled.digests.size(), 7u);
      for (size_t i = 3; i < 7; ++i) {
        const auto difference = compare_digests(full.digests[i], prefilled.digests[i]);
        EXPECT_FALSE(difference) << "step " << i << ": " << *difference;
      }
      EXPECT_TRUE(compare_digests(full.digests[0], prefilled.digests[0])) << "step 0 differs (request 0 ran)";
      EXPECT_TRUE(full.caches.compressed.bytes == prefilled.caches.compressed.bytes);
      EXPECT_TRUE(full.caches.ring.bytes == prefilled.caches.ring.bytes);
    }
}

TEST(PrefilledContext, AChunkPastTheCommittedLengthNeedsThePrefill) {
  Scenario wrong = two_requests(false, StoreDtype::kBf16, true);
  wrong.steps[3].chunks[0].prefilled = false;
  const Stepped r = run(wrong);
  ASSERT_TRUE(r.failure);
  EXPECT_TRUE(r.failure->invalid_scenario) << "a chunk past the committed length without pre-fill or hit";
}

TEST(PrefilledContext, OnlyARequestWithNothingCommittedStartsPrefilled) {
  Scenario s = two_requests(false, StoreDtype::kBf16, true);
  s.steps[4].chunks[0].prefilled = true;  // request 0 is running: 45 positions committed
  const Stepped r = run(s);
  ASSERT_TRUE(r.failure);
  EXPECT_TRUE(r.failure->invalid_scenario);
  EXPECT_EQ(r.failure->step, 4);
  EXPECT_NE(r.failure->message.find("prefilled"), std::string::npos) << r.failure->message;
}

TEST(PrefilledContext, TheFileFieldRoundTripsAndNeedsAStartPastZero) {
  const Scenario s = two_requests(true, StoreDtype::kBf16, true);
  std::ostringstream out;
  write_scenario(out, s);
  EXPECT_NE(out.str().find("\"prefilled\":true"), std::string::npos);
  std::istringstream in(out.str());
  const ScenarioFile back = read_scenario(in);
  ASSERT_EQ(back.scenario.steps.size(), s.steps.size());
  EXPECT_TRUE(back.scenario.steps[3].chunks[0].prefilled);
  EXPECT_FALSE(back.scenario.steps[3].chunks[1].prefilled);
  EXPECT_TRUE(back.scenario.steps[3] == s.steps[3]);

  std::string text = out.str();
  text.replace(text.find("\"start\":37"), 10, "\"start\":0");
  std::istringstream bad(text);
  try {
    read_scenario(bad);
    ADD_FAILURE() << "a prefilled chunk at 0 was read";
  } catch (const InputError& e) {
    EXPECT_EQ(e.error().field, "chunks[0].prefilled");
    EXPECT_EQ(e.error().index, 5) << "the line of step 3";
    EXPECT_EQ(e.error().rule, "nothing-prefilled");
  }
}

// Two requests of 300 and 90 prompt tokens, output 6 each, the second arriving while the first decodes.
const char* const kLongPromptLog =
    R"({"timestamp": 0, "input_length": 300, "output_length": 6}
{"timestamp": 50, "input_length": 90, "output_length": 6}
{"timestamp": 75, "input_length": 2, "output_length": 3}
)";

TEST(PrefilledContext, ALogReplaysWithEveryRequestStartingPrefilled) {
  ReplayOptions options;
  options.preempt_per_mille = 0;
  options.token_budget = 64;
  options.prefilled_context = 256;
  const Workload w =
      workload_from_request_log(parse_request_log(kLongPromptLog, "long.jsonl", RequestLogFormat::kJsonl, 64), options);
  EXPECT_EQ(w.prefilled_context, 256);
  const Scenario s = simulate(w, 1, w.schedule->step_limit);
  std::map<int64_t, ChunkRecord> first;
  std::set<int64_t> finished;
  for (const StepRecord& step : s.steps) {
    for (const ChunkRecord& c : step.chunks) first.emplace(c.request, c);
    finished.insert(step.finished.begin(), step.finished.end());
  }
  EXPECT_EQ(finished.size(), 3u);
  ASSERT_EQ(first.size(), 3u);
  // min(256, prompt - 1): 256, 89 and 1; each pre-filled, the rest of the prompt in one chunk.
  EXPECT_EQ(first.at(0).start, 256);
  EXPECT_EQ(first.at(1).start, 89);
  EXPECT_EQ(first.at(2).start, 1);
  for (const auto& [id, c] : first) {
    EXPECT_TRUE(c.prefilled) << "request " << id;
    EXPECT_EQ(c.start + c.length, c.prompt_len) << "request " << id;
  }
  // 300 + 6 - 1 positions of request 0 in far fewer steps than its 64-row budget would prefill.
  EXPECT_LT(static_cast<int64_t>(s.steps.size()), 300 / 64 + 6);
  const auto violations = testing::scenario_rule_violations(s, true);
  EXPECT_TRUE(violations.empty()) << violations.front();
  EXPECT_EQ(coverage_of(s).prefix_hits, 0);
  const Stepped r = run(s);
  EXPECT_FALSE(r.failure) << to_string(*r.failure);
}

}  // namespace
}  // namespace qsa::traces
