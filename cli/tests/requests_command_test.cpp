// `qsacheck simulate --requests` and `qsacheck check --requests` on a request log written by hand
// (traces/tests/logs/shared-prefix.jsonl: hash blocks of 64 tokens, 7 requests, 4 of them starting
// on hash blocks an earlier request logged; RequestReplay in traces/tests derives where).

#include <fstream>
#include <sstream>

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

TEST(SimulateRequests, SaysSoAndExitsThreeWhenAWindowDoesNotFinishWithinTheSteps) {
  const std::string file = temp_dir() + "/log.scenario";
  const auto r = run_qsacheck("simulate --requests " + kLog + " --hash-block 64 --steps 5 " + file);
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_NE(r.out.find("NOT COMPLETE"), std::string::npos) << r.out;
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

}  // namespace
}  // namespace qsa
