// `qsacheck simulate --requests` and `qsacheck check --requests` on a request log written by hand
// (traces/tests/logs/shared-prefix.jsonl: hash blocks of 64 tokens, 7 requests, 4 of them starting
// on hash blocks an earlier request logged; RequestReplay in traces/tests derives where).

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "qsa/traces/request_replay.hpp"
#include "qsa/traces/scenario_file.hpp"
#include "qsa/traces/simulator.hpp"
#include "run_command.hpp"

namespace qsa {
namespace {

using testing::run_qsacheck;
using testing::temp_dir;

const std::string kLog = std::string(QSA_SOURCE_DIR) + "/traces/tests/logs/shared-prefix.jsonl";
// A committed window of a public log (traces/logs/README.md): the Azure code trace's first 300 requests.
const std::string kAzureWindow = std::string(QSA_SOURCE_DIR) + "/traces/logs/azure-code-2023-window.csv";

// The shipped window's columns, read here line by line (not through the project's reader).
struct WindowColumns {
  std::vector<int64_t> prompts, outputs;
  int64_t first_ms = -1, last_ms = -1;  // milliseconds of the day (the window lies inside one day)
};

WindowColumns read_window_columns(const std::string& path) {
  WindowColumns w;
  std::ifstream in(path);
  std::string line, day;
  auto next = [&] {  // a line without its CRLF ending (the source's, kept byte for byte)
    if (!std::getline(in, line)) return false;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  };
  next();
  EXPECT_EQ(line, "TIMESTAMP,ContextTokens,GeneratedTokens");
  while (next()) {
    // 2023-11-16 18:17:03.9799600,4808,10
    const size_t comma = line.find(','), second = line.find(',', comma + 1);
    if (day.empty()) day = line.substr(0, 10);
    EXPECT_EQ(line.substr(0, 10), day) << line;
    const int64_t ms = ((std::stoll(line.substr(11, 2)) * 60 + std::stoll(line.substr(14, 2))) * 60 +
                        std::stoll(line.substr(17, 2))) * 1000 + std::stoll(line.substr(20, 3));
    if (w.first_ms < 0) w.first_ms = ms;
    w.last_ms = ms;
    w.prompts.push_back(std::stoll(line.substr(comma + 1, second - comma - 1)));
    w.outputs.push_back(std::stoll(line.substr(second + 1)));
  }
  return w;
}

// sorted[floor(percent / 100 * (n - 1))], docs/workloads.md "What is reported".
int64_t percentile(std::vector<int64_t> v, int64_t percent) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(percent * static_cast<int64_t>(v.size() - 1) / 100)];
}

TEST(SimulateRequests, WritesTheLogsScenarioWithTheLogsFiguresBesideWhatItExercised) {
  const std::string file = temp_dir() + "/log.scenario";
  const auto r =
      run_qsacheck("simulate --requests " + kLog + " --hash-block 64 --preempt-per-mille 0 --json - " + file);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto summary = nlohmann::json::parse(r.out);
  const auto& log = summary["request_log"]["log"];
  EXPECT_EQ(log["requests"], 7);
  EXPECT_EQ(log["span_ms"], 90000);
  EXPECT_EQ(log["prefix_requests"], 4);
  EXPECT_EQ(log["prompt_tokens"]["max"], 200);
  const auto& replayed = summary["request_log"]["replayed"];
  EXPECT_EQ(replayed["finished"], 7);
  EXPECT_EQ(replayed["prefix_hits"], 4);
  EXPECT_EQ(summary["coverage"]["prefix_hits"], 4);
  EXPECT_LE(replayed["steps"].get<int64_t>(), replayed["step_limit"].get<int64_t>());
  EXPECT_EQ(replayed["largest_position"], 318);  // request 0: prompt 200 + 120 outputs, the last one never written
  EXPECT_EQ(replayed["rows_by_position"].size(), 4u);  // positions below 64, 128, 256, 512

  // The file is the simulator's scenario of that workload, and it replays.
  traces::ReplayOptions options;
  options.preempt_per_mille = 0;
  const traces::Workload w = traces::workload_from_request_log(
      traces::read_request_log(kLog, traces::RequestLogFormat::kJsonl, 64), options);
  const traces::Scenario expected = traces::simulate(w, 1, w.schedule->step_limit);
  std::ostringstream text;
  traces::write_scenario(text, expected);
  EXPECT_EQ(testing::read_file(file), text.str());
  const auto replay = run_qsacheck("replay " + file);
  EXPECT_EQ(replay.exit_code, 0) << replay.out;
}

TEST(SimulateRequests, PrefilledContextStartsEveryRequestPastItsPrefilledPositions) {
  const std::string file = temp_dir() + "/prefilled.scenario";
  const auto r = run_qsacheck("simulate --requests " + kLog +
                              " --hash-block 64 --preempt-per-mille 0 --prefilled-context 150 --json - " + file);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto summary = nlohmann::json::parse(r.out);
  const auto& replayed = summary["request_log"]["replayed"];
  EXPECT_EQ(replayed["finished"], 7);
  EXPECT_EQ(replayed["prefilled_context"], 150);
  EXPECT_EQ(replayed["prefix_hits"], 0);  // a pre-filled request takes none
  // Each request's first chunk is pre-filled at min(150, prompt - 1): prompts 200, 100 and 40.
  const traces::ScenarioFile scenario = traces::read_scenario_file(file);
  std::map<int64_t, traces::ChunkRecord> first;
  for (const traces::StepRecord& step : scenario.scenario.steps)
    for (const traces::ChunkRecord& c : step.chunks) first.emplace(c.request, c);
  ASSERT_EQ(first.size(), 7u);
  for (const auto& [id, c] : first) {
    EXPECT_TRUE(c.prefilled) << "request " << id;
    EXPECT_EQ(c.start, std::min<int64_t>(150, c.prompt_len - 1)) << "request " << id;
  }
  const auto replay = run_qsacheck("replay " + file);
  EXPECT_EQ(replay.exit_code, 0) << replay.out;
  // The pre-filled rows are read and checked: request 0 starts at 150, inside the group 148-151,
  // whose members 148 and 149 come from the pre-filled ring; a backend that pools a wrong ring
  // row fails on that first step.
  // Through the differential (any backend but the reference) the expected caches start from the
  // same pre-filled state: a planted bug that no valid step shows passes. (Not an fp8 or MRoPE
  // bug on this bf16 text scenario: the other-configuration call before step 24 is fp8 with MRoPE.)
  const auto differential = run_qsacheck("replay --backend bug:request-capacity-unchecked " + file);
  EXPECT_EQ(differential.exit_code, 0) << differential.out;
  const auto planted = run_qsacheck("replay --backend bug:pool-wrong-ring-row " + file);
  EXPECT_EQ(planted.exit_code, 1) << planted.out;
  EXPECT_NE(planted.out.find("FAIL step 0: step-differential cache.compressed"), std::string::npos) << planted.out;
}

TEST(SimulateRequests, SaysSoAndExitsThreeWhenAWindowDoesNotFinishWithinTheSteps) {
  const std::string file = temp_dir() + "/log.scenario";
  const auto r = run_qsacheck("simulate --requests " + kLog + " --hash-block 64 --steps 5 " + file);
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_NE(r.out.find("NOT COMPLETE"), std::string::npos) << r.out;
}

TEST(CheckRequests, ExitsThreeListingTheRequestsAStepLimitLeftUnfinished) {
  const auto r = run_qsacheck("check --backend reference --requests " + kLog +
                              " --hash-block 64 --window 0:3 --scenarios 1 --batches 0 --steps 5");
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_NE(r.out.find("requests of the window did not finish in 5 steps (raise --steps): log indices 0"),
            std::string::npos)
      << r.out;
}

TEST(CheckRequests, RunsTheLogAsACampaignWorkload) {
  const std::string dir = temp_dir();
  const auto r = run_qsacheck("check --backend reference --requests " + kLog +
                              " --hash-block 64 --preempt-per-mille 0 --window 0:6 --scenarios 2 --batches 0 --json " +
                              dir + "/report.json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("prefix share: 4 of 6 requests"), std::string::npos) << r.out;
  std::ifstream in(dir + "/report.json");
  const auto report = nlohmann::json::parse(in);
  ASSERT_EQ(report["jobs"].size(), 2u);
  EXPECT_EQ(report["jobs"][0]["workload"], "requests");
  EXPECT_EQ(report["coverage"]["prefix_hits"], 8);  // 4 per scenario, where the hashes say
  EXPECT_EQ(report["coverage"]["requests"], 12);
  // Another window is another campaign.
  const auto other = run_qsacheck("check --backend reference --requests " + kLog +
                                  " --hash-block 64 --preempt-per-mille 0 --window 0:5 --scenarios 2 --batches 0 "
                                  "--json " + dir + "/other.json");
  ASSERT_EQ(other.exit_code, 0) << other.out;
  std::ifstream other_in(dir + "/other.json");
  EXPECT_NE(nlohmann::json::parse(other_in)["campaign"]["settings_hash"], report["campaign"]["settings_hash"]);
}

TEST(CheckRequests, ReportsTheLogsFiguresBesideWhatItExercisedAndShardsMergeThem) {
  const std::string dir = temp_dir();
  const std::string campaign = "check --backend reference --requests " + kLog +
                               " --hash-block 64 --preempt-per-mille 0 --window 0:6 --scenarios 2 --batches 0";
  const auto r = run_qsacheck(campaign + " --json " + dir + "/report.json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("campaign exercised: 2 scenario runs"), std::string::npos) << r.out;
  std::ifstream in(dir + "/report.json");
  const auto report = nlohmann::json::parse(in);
  ASSERT_TRUE(report.contains("request_log")) << report.dump();
  // The log's figures as the library computes them for that window.
  traces::ReplayOptions options;
  options.preempt_per_mille = 0;
  options.window.to = 6;
  const traces::Workload w = traces::workload_from_request_log(
      traces::read_request_log(kLog, traces::RequestLogFormat::kJsonl, 64), options);
  const traces::RequestLogFigures& f = w.schedule->figures;
  const auto& log = report["request_log"]["log"];
  EXPECT_EQ(log["window"], nlohmann::json::array({0, 6}));
  EXPECT_EQ(log["requests"], f.requests);
  EXPECT_EQ(log["span_ms"], f.span_ms);
  EXPECT_DOUBLE_EQ(log["requests_per_s"].get<double>(), f.requests_per_s);
  EXPECT_EQ(log["prompt_tokens"]["p50"], f.prompt_p50);
  EXPECT_EQ(log["prompt_tokens"]["p99"], f.prompt_p99);
  EXPECT_EQ(log["output_tokens"]["p90"], f.output_p90);
  EXPECT_EQ(log["output_tokens"]["max"], f.output_max);
  EXPECT_EQ(log["prefix_requests"], 4);  // RequestReplay derives which
  EXPECT_EQ(log["prefix_hash_blocks"], f.prefix_blocks);
  // What the campaign exercised: its coverage, beside the log.
  const auto& exercised = report["request_log"]["exercised"];
  EXPECT_EQ(exercised["scenario_runs"], 2);
  EXPECT_EQ(exercised["prefix_hits"], report["coverage"]["prefix_hits"]);
  EXPECT_EQ(exercised["requests"], report["coverage"]["requests"]);
  EXPECT_EQ(exercised["steps"], report["coverage"]["steps"]);
  // The log-implied reuse the two runs exercised, and what their hits shared.
  EXPECT_GT(exercised["log_implied_reusable_positions"].get<int64_t>(), 0);
  EXPECT_LE(exercised["log_implied_reused_positions"].get<int64_t>(),
            exercised["log_implied_reusable_positions"].get<int64_t>());
  EXPECT_GT(exercised["log_implied_reused_positions"].get<int64_t>(), 0);
  EXPECT_GT(report["sharing"]["shared_positions"].get<int64_t>(), 0);

  // Two shards merge into the same figures.
  for (int k = 1; k <= 2; ++k)
    ASSERT_EQ(run_qsacheck(campaign + " --shard " + std::to_string(k) + "/2 --json " + dir + "/s" +
                           std::to_string(k) + ".json")
                  .exit_code,
              0);
  const auto merged = run_qsacheck("merge " + dir + "/s1.json " + dir + "/s2.json -o " + dir + "/merged.json");
  ASSERT_EQ(merged.exit_code, 0) << merged.out;
  EXPECT_NE(merged.out.find("prefix share: 4 of 6 requests"), std::string::npos) << merged.out;
  std::ifstream merged_in(dir + "/merged.json");
  const auto merged_report = nlohmann::json::parse(merged_in);
  EXPECT_EQ(merged_report["request_log"], report["request_log"]);
  EXPECT_EQ(merged_report["sharing"], report["sharing"]);
  // The default campaign replays no log: no request_log object.
  const auto plain = run_qsacheck("check --backend reference --workload default --scenarios 1 --steps 5 --batches 0 "
                                  "--json " + dir + "/plain.json");
  ASSERT_EQ(plain.exit_code, 0) << plain.out;
  std::ifstream plain_in(dir + "/plain.json");
  EXPECT_FALSE(nlohmann::json::parse(plain_in).contains("request_log"));
}

TEST(CheckRequests, ReplaysTheShippedAzureCodeWindowUntilEveryRequestFinished) {
  const WindowColumns columns = read_window_columns(kAzureWindow);
  const auto n = static_cast<int64_t>(columns.prompts.size());
  ASSERT_EQ(n, 300);
  const std::string dir = temp_dir();
  const auto r = run_qsacheck("check --backend reference --requests " + kAzureWindow +
                              " --length-scale 4 --scenarios 1 --batches 0 --json " + dir + "/report.json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const int64_t span = columns.last_ms - columns.first_ms;
  EXPECT_NE(r.out.find("300 requests over " + std::to_string(span) + " ms"), std::string::npos) << r.out;
  std::ifstream in(dir + "/report.json");
  const auto report = nlohmann::json::parse(in);
  const auto& log = report["request_log"]["log"];
  EXPECT_EQ(log["window"], nlohmann::json::array({0, n}));
  EXPECT_EQ(log["requests"], n);
  EXPECT_EQ(log["span_ms"], span);
  for (const int64_t p : {50, 90, 99}) {
    const std::string key = "p" + std::to_string(p);
    EXPECT_EQ(log["prompt_tokens"][key], percentile(columns.prompts, p)) << key;
    EXPECT_EQ(log["output_tokens"][key], percentile(columns.outputs, p)) << key;
  }
  EXPECT_EQ(log["prompt_tokens"]["max"], *std::max_element(columns.prompts.begin(), columns.prompts.end()));
  EXPECT_EQ(log["output_tokens"]["max"], *std::max_element(columns.outputs.begin(), columns.outputs.end()));
  EXPECT_EQ(report["request_log"]["exercised"]["requests"], n);
  ASSERT_EQ(report["jobs"].size(), 1u);
  const auto& job = report["jobs"][0];
  EXPECT_EQ(job["result"], "passed");

  // Every request finished: the simulator of that seed finishes all 300 in exactly the steps the
  // campaign ran (a campaign's scenario stops when its simulator is done, or at the step limit).
  const auto sim = run_qsacheck("simulate --requests " + kAzureWindow + " --length-scale 4 --seed " +
                                job["seed"].dump() + " --json - " + dir + "/window.scenario");
  ASSERT_EQ(sim.exit_code, 0) << sim.out;
  const auto replayed = nlohmann::json::parse(sim.out)["request_log"]["replayed"];
  EXPECT_EQ(replayed["finished"], n);
  EXPECT_EQ(replayed["steps"], job["steps_run"]);
  EXPECT_LT(replayed["steps"].get<int64_t>(), replayed["step_limit"].get<int64_t>());
}

}  // namespace
}  // namespace qsa
