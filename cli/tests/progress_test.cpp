// The overall progress of a check's scenario jobs: jobs done of total, elapsed, ETA,
// on every job line; a request log's replay counts down the positions it serves.

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "progress_line.hpp"
#include "qsa/traces/replay_figures.hpp"
#include "qsa/traces/scenario.hpp"
#include "request_log_options.hpp"
#include "run_command.hpp"

namespace qsa::cli {
namespace {

TEST(OverallProgress, CountsJobsAndEstimatesTheRestFromTheJobsDone) {
  EXPECT_EQ(overall_progress(0, 20, 3.2), "[jobs 0/20, 3 s elapsed, ETA ?]");
  EXPECT_EQ(overall_progress(5, 20, 10.0), "[jobs 5/20, 10 s elapsed, ETA 30 s]");
  EXPECT_EQ(overall_progress(20, 20, 41.0), "[jobs 20/20, 41 s elapsed, ETA 0 s]");
  // The checking rate, once a second has passed.
  EXPECT_EQ(overall_progress(5, 20, 10.0, 24000), "[jobs 5/20, 10 s elapsed, ETA 30 s, 2400 steps/s]");
  EXPECT_EQ(overall_progress(0, 20, 0.5, 300), "[jobs 0/20, 0 s elapsed, ETA ?]");
  EXPECT_EQ(overall_progress(1, 1, 612.0, 150), "[jobs 1/1, 612 s elapsed, ETA 0 s, 0.2 steps/s]");
}

// The progress is on stderr, which run_qsacheck discards: read it here.
std::string stderr_of(const std::string& arguments, int* exit_code) {
  const std::string command = std::string(QSACHECK_BINARY) + " " + arguments + " 2>&1 >/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return "";
  std::string err;
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) err.append(buffer, n);
  *exit_code = pclose(pipe);
  return err;
}

TEST(OverallProgress, EveryJobLineOfACheckSaysHowManyJobsAreDone) {
  int exit_code = -1;
  const std::string err = stderr_of(
      "check --workload default --scenarios 2 --steps 10 --batches 10 --out " + testing::temp_dir(), &exit_code);
  EXPECT_EQ(exit_code, 0) << err;
  EXPECT_NE(err.find("[jobs 1/2, "), std::string::npos) << err;
  EXPECT_NE(err.find("[jobs 2/2, "), std::string::npos) << err;
}

TEST(LogProgress, TheEtaFollowsTheRateOfWhatIsDone) {
  EXPECT_EQ(eta_text(0, 100, 5.0), "ETA ?");
  EXPECT_EQ(eta_text(25, 100, 10.0), "ETA 30 s");
  EXPECT_EQ(eta_text(100, 100, 7.0), "ETA 0 s");
  EXPECT_EQ(eta_text(101, 100, 7.0), "ETA ?");
}

TEST(LogProgress, ServedPositionsAreCommittedOrSharedAndAPreemptionGivesThemBack) {
  traces::ChunkRecord first;  // request 0: 10 rows from 0, 8 accepted
  first.request = 0, first.start = 0, first.length = 10, first.accepted = 8;
  traces::ChunkRecord hit;  // request 1: a hit of 64 positions, then 5 rows
  hit.request = 1, hit.start = 64, hit.length = 5, hit.accepted = 5;
  traces::StepRecord step;
  step.chunks = {first, hit};
  traces::ServedPositions served;
  served.add(step);
  EXPECT_EQ(served.served(), 8 + 69);
  traces::ChunkRecord next = first;  // request 0 continues at 8 with 4 rows
  next.start = 8, next.length = 4, next.accepted = 4;
  traces::StepRecord later;
  later.chunks = {next};
  later.finished = {1};  // a finished request's positions stay served
  later.preempted = {0};  // a preempted one's go back: it is recomputed
  served.add(later);
  EXPECT_EQ(served.served(), 69);
}

TEST(LogProgress, ACheckOfALogCountsDownThePositionsToServe) {
  int exit_code = -1;
  const std::string err = stderr_of("check --requests " + std::string(QSA_SOURCE_DIR) +
                                        "/traces/logs/azure-code-2023-window.csv --window 0:5 --scenarios 1 --batches 0 "
                                        "--out " + testing::temp_dir(),
                                    &exit_code);
  EXPECT_EQ(exit_code, 0) << err;
  EXPECT_NE(err.find(", positions "), std::string::npos) << err;
  EXPECT_NE(err.find(" (ETA "), std::string::npos) << err;
}

}  // namespace
}  // namespace qsa::cli
