// The overall progress of a check's scenario jobs (issue 52): jobs done of total, elapsed, ETA,
// on every job line.

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "progress_line.hpp"
#include "run_command.hpp"

namespace qsa::cli {
namespace {

TEST(OverallProgress, CountsJobsAndEstimatesTheRestFromTheJobsDone) {
  EXPECT_EQ(overall_progress(0, 20, 3.2), "[jobs 0/20, 3 s elapsed, ETA ?]");
  EXPECT_EQ(overall_progress(5, 20, 10.0), "[jobs 5/20, 10 s elapsed, ETA 30 s]");
  EXPECT_EQ(overall_progress(20, 20, 41.0), "[jobs 20/20, 41 s elapsed, ETA 0 s]");
  // The checking rate, once a second has passed (issue 53).
  EXPECT_EQ(overall_progress(5, 20, 10.0, 24000), "[jobs 5/20, 10 s elapsed, ETA 30 s, 2400 steps/s]");
  EXPECT_EQ(overall_progress(0, 20, 0.5, 300), "[jobs 0/20, 0 s elapsed, ETA ?]");
  EXPECT_EQ(overall_progress(1, 1, 612.0, 150), "[jobs 1/1, 612 s elapsed, ETA 0 s, 0.2 steps/s]");
}

TEST(OverallProgress, EveryJobLineOfACheckSaysHowManyJobsAreDone) {
  // The progress is on stderr, which run_qsacheck discards: read it here.
  const std::string command = std::string(QSACHECK_BINARY) +
                              " check --workload default --scenarios 2 --steps 10 --batches 10 --out " +
                              testing::temp_dir() + " 2>&1 >/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string err;
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) err.append(buffer, n);
  EXPECT_EQ(pclose(pipe), 0) << err;
  EXPECT_NE(err.find("[jobs 1/2, "), std::string::npos) << err;
  EXPECT_NE(err.find("[jobs 2/2, "), std::string::npos) << err;
}

}  // namespace
}  // namespace qsa::cli
