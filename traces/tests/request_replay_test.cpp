// A request log replayed as requests (traces/request_replay.hpp): arrivals in order at the mapped
// steps, prefix hits exactly where the hashes say, every request finished within the stated
// steps, and the scenario rules model accepting what a log produces.

#include <map>
#include <set>

#include <gtest/gtest.h>

#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/request_replay.hpp"
#include "qsa/traces/simulator.hpp"
#include "support/scenario_rules.hpp"

namespace qsa::traces {
namespace {

// Hash blocks of 64 tokens. Request 0 (prompt 200: hashes a b c d, 3 whole blocks) decodes 120
// tokens, so it is still running when the others arrive (250 ms = 10 steps later and after).
//   1: a b x y, prompt 200 -> shares 2 whole blocks with 0: a hit at 128.
//   2: a z, prompt 100     -> 1 whole block (100 / 64): a hit at 64.
//   3: q r s t, prompt 200 -> a unique first hash: no family, starts at 0.
//   4: a b c d, prompt 200 -> 3 whole blocks: 192, below 0's prompt (200) and its own last token.
//   5: a b c, prompt 150   -> hashes equal to 0's, but 150 / 64 = 2 whole blocks: a hit at 128.
// With B = 16 or 64 (drawn per seed) every one of these is a multiple of B.
const char* const kSharedPrefixLog =
    R"({"timestamp": 0, "input_length": 200, "output_length": 120, "hash_ids": [11, 12, 13, 14]}
{"timestamp": 250, "input_length": 200, "output_length": 8, "hash_ids": [11, 12, 90, 91]}
{"timestamp": 300, "input_length": 100, "output_length": 8, "hash_ids": [11, 92]}
{"timestamp": 350, "input_length": 200, "output_length": 8, "hash_ids": [30, 31, 32, 33]}
{"timestamp": 400, "input_length": 200, "output_length": 8, "hash_ids": [11, 12, 13, 14]}
{"timestamp": 450, "input_length": 150, "output_length": 8, "hash_ids": [11, 12, 13]}
{"timestamp": 90000, "input_length": 40, "output_length": 4}
)";

RequestLog shared_prefix_log() {
  return parse_request_log(kSharedPrefixLog, "shared-prefix.jsonl", RequestLogFormat::kJsonl, 64);
}

// The error a replay of the log with these options is refused with.
Error refusal(const ReplayOptions& options) {
  try {
    workload_from_request_log(shared_prefix_log(), options);
  } catch (const InputError& e) {
    return e.error();
  }
  ADD_FAILURE() << "the replay was not refused";
  return {};
}

struct Replayed {
  Scenario scenario;
  std::map<int64_t, int64_t> first_start;  // request -> start of its first chunk
  std::map<int64_t, int64_t> first_step;   // request -> step of its first chunk
  std::set<int64_t> finished;
};

Replayed replay(const Workload& w, uint64_t seed, int64_t steps) {
  Replayed r;
  r.scenario = simulate(w, seed, steps);
  for (size_t i = 0; i < r.scenario.steps.size(); ++i) {
    for (const ChunkRecord& c : r.scenario.steps[i].chunks)
      if (r.first_start.emplace(c.request, c.start).second) r.first_step[c.request] = static_cast<int64_t>(i);
    r.finished.insert(r.scenario.steps[i].finished.begin(), r.scenario.steps[i].finished.end());
  }
  return r;
}

TEST(RequestReplay, PrefixHitsAppearWhereTheHashesSayAndEveryRequestFinishes) {
  ReplayOptions options;
  options.preempt_per_mille = 0;  // a preempted peer would take its blocks away
  const Workload w = workload_from_request_log(shared_prefix_log(), options);
  const RequestSchedule& schedule = *w.schedule;
  EXPECT_EQ(schedule.hash_block_positions, 64);
  // 2 * sum of (prompt + output - 1): (319 + 207 + 107 + 207 + 207 + 157 + 43) * 2.
  EXPECT_EQ(schedule.step_limit, 2 * (319 + 207 + 107 + 207 + 207 + 157 + 43));
  std::set<int64_t> block_sizes;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    const Replayed r = replay(w, seed, schedule.step_limit);
    block_sizes.insert(r.scenario.config.block_size);
    EXPECT_EQ(r.finished.size(), 7u) << "seed " << seed;
    EXPECT_LE(static_cast<int64_t>(r.scenario.steps.size()), schedule.step_limit / 2)
        << "without preemption every step commits a position";
    EXPECT_EQ(r.first_start, (std::map<int64_t, int64_t>{{0, 0}, {1, 128}, {2, 64}, {3, 0}, {4, 192}, {5, 128},
                                                          {6, 0}}))
        << "seed " << seed << " B " << r.scenario.config.block_size;
    EXPECT_EQ(coverage_of(r.scenario).prefix_hits, 4) << "seed " << seed;
    const auto violations = testing::scenario_rule_violations(r.scenario, true);
    EXPECT_TRUE(violations.empty()) << "seed " << seed << ": " << (violations.empty() ? "" : violations.front());
  }
  EXPECT_EQ(block_sizes, (std::set<int64_t>{16, 64}));
}

TEST(RequestReplay, ArrivalsComeInLogOrderAtTheMappedSteps) {
  ReplayOptions options;
  options.preempt_per_mille = 0;
  const Replayed r = replay(workload_from_request_log(shared_prefix_log(), options), 1, 10000);
  // Request 1 arrives at 250 / 25 = step 10, request 5 at 450 / 25 = 18; with a budget of 512
  // each is admitted the step it arrives (request 0 alone runs before). Request 6 arrives at
  // 90 s, after everything else finished: the idle time in between is not recorded.
  EXPECT_EQ(r.first_step.at(0), 0);
  EXPECT_EQ(r.first_step.at(1), 10);
  EXPECT_EQ(r.first_step.at(5), 18);
  for (int64_t id = 1; id < 7; ++id) EXPECT_GT(r.first_step.at(id), r.first_step.at(id - 1) - 1) << id;
  EXPECT_LT(r.first_step.at(6), 90000 / 25);
  // Time compressed 10 times: 250 ms is one step.
  options.time_compression = 10;
  const Replayed fast = replay(workload_from_request_log(shared_prefix_log(), options), 1, 10000);
  EXPECT_EQ(fast.first_step.at(1), 1);
}

TEST(RequestReplay, AWindowReplaysItsRequestsOnlyAndPreemptedOnesStillFinish) {
  ReplayOptions options;
  options.window = parse_request_window("1:6");
  options.preempt_per_mille = 200;  // a preemption in one step of five
  const Workload w = workload_from_request_log(shared_prefix_log(), options);
  EXPECT_EQ(w.schedule->arrivals.size(), 5u);
  EXPECT_EQ(w.schedule->arrivals.front().index, 1);
  EXPECT_EQ(w.schedule->arrivals.front().step, 0);  // times count from the window's first request
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    const Replayed r = replay(w, seed, w.schedule->step_limit);
    EXPECT_EQ(r.finished.size(), 5u) << "seed " << seed;
    EXPECT_GT(coverage_of(r.scenario).preemptions, 0) << "seed " << seed;
    const auto violations = testing::scenario_rule_violations(r.scenario, true);
    EXPECT_TRUE(violations.empty()) << "seed " << seed << ": " << (violations.empty() ? "" : violations.front());
  }
}

TEST(RequestReplay, ALengthScaleDividesLengthsAndTheHashBlock) {
  ReplayOptions options;
  options.length_scale = 4;
  options.preempt_per_mille = 0;
  const Workload w = workload_from_request_log(shared_prefix_log(), options);
  EXPECT_EQ(w.schedule->hash_block_positions, 16);
  EXPECT_EQ(w.schedule->arrivals[0].prompt_len, 50);
  EXPECT_EQ(w.schedule->arrivals[0].output_len, 30);
  // Request 1 shares 2 hash blocks = 32 positions: a hit at 32. B = 64 would share nothing (a
  // campaign block is whole inside the shared hash blocks or not shared), so only B = 16 is drawn.
  std::set<int64_t> block_sizes;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const Replayed r = replay(w, seed, w.schedule->step_limit);
    const int64_t b = r.scenario.config.block_size;
    block_sizes.insert(b);
    EXPECT_EQ(r.first_start.at(1), 32) << "seed " << seed;
    EXPECT_EQ(r.finished.size(), 7u);
  }
  EXPECT_EQ(block_sizes, (std::set<int64_t>{16}));
  options.length_scale = 8;  // 8 positions a hash block: below every B, the error says which scale works
  EXPECT_EQ(refusal(options).rule, "hash-block-below-B");
  EXPECT_NE(refusal(options).message.find("--length-scale of at most 4"), std::string::npos) << refusal(options).message;
  options.length_scale = 3;  // 64 / 3 positions: not whole
  EXPECT_EQ(refusal(options).field, "--length-scale");
  EXPECT_EQ(refusal(options).rule, "not-a-divisor");
}

TEST(RequestReplay, WindowsAreParsedAndCheckedAgainstTheLog) {
  EXPECT_EQ(parse_request_window("3:9").from, 3);
  EXPECT_EQ(parse_request_window("3:9").to, 9);
  EXPECT_EQ(parse_request_window(":9").from, 0);
  EXPECT_EQ(parse_request_window("3:").to, -1);
  for (const char* bad : {"3", "a:4", "5:5", "9:3", "-1:4"}) EXPECT_THROW(parse_request_window(bad), InputError) << bad;
  ReplayOptions options;
  options.window = parse_request_window("7:");  // the log holds requests 0 ... 6
  EXPECT_EQ(refusal(options).field, "--window");
  EXPECT_EQ(refusal(options).rule, "out-of-range");
}

TEST(RequestReplay, AnAzureCsvLogReplaysWithoutHits) {
  const RequestLog log = parse_request_log(
      "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03.9799600,480,10\n"
      "2023-11-16 18:17:04.0319600,318,8\n2023-11-16 18:17:04.5,100,30\n",
      "azure.csv", RequestLogFormat::kAzureCsv);
  const Workload w = workload_from_request_log(log, ReplayOptions{});
  EXPECT_EQ(w.schedule->arrivals[1].step, 2);  // 52 ms / 25
  EXPECT_EQ(w.schedule->arrivals[2].step, 20);  // 520 ms / 25
  const Replayed r = replay(w, 1, w.schedule->step_limit);
  EXPECT_EQ(r.finished.size(), 3u);
  EXPECT_EQ(coverage_of(r.scenario).prefix_hits, 0);
}

}  // namespace
}  // namespace qsa::traces
