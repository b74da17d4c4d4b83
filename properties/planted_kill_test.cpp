// Proof that the checks work: the property suite, run against each planted bug (no shrinking,
// stop at the first failing test), must fail for every one of them. The suite runs as a separate
// process per bug, exactly as a user would run it (QSA_BACKEND=bug:... property_tests).

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <string>

#include "qsa/backends/planted.hpp"

namespace qsa {
namespace {

struct SuiteRun {
  int exit_code = -1;
  bool signalled = false;
  std::string failed_test;  // the first "[  FAILED  ]" test
  double seconds = 0;
};

SuiteRun run_suite_against(const std::string& backend) {
  const std::string command = "QSA_BACKEND=" + backend + " QSA_SHRINK=0 RC_PARAMS='noshrink=1 max_success=100' " +
                              PROPERTY_TESTS_BINARY + " --gtest_fail_fast --gtest_brief=1 2>&1";
  const auto start = std::chrono::steady_clock::now();
  SuiteRun run;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return run;
  std::array<char, 4096> line{};
  while (fgets(line.data(), static_cast<int>(line.size()), pipe) != nullptr) {
    const std::string text = line.data();
    if (run.failed_test.empty() && text.rfind("[  FAILED  ] ", 0) == 0)
      run.failed_test = text.substr(13, text.find_first_of(" (\n", 13) - 13);
  }
  const int status = pclose(pipe);
  run.signalled = WIFSIGNALED(status);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

TEST(PlantedBugs, ThePropertySuiteCatchesEveryOne) {
  const SuiteRun control = run_suite_against("reference");
  ASSERT_EQ(control.exit_code, 0)
      << "the property suite must pass on the reference before it can judge the planted bugs";
  std::printf("%-44s %-7s %-70s %8s\n", "planted bug", "caught", "first failing property", "seconds");
  int survivors = 0;
  for (const backends::PlantedBug& m : backends::planted_cpu_bugs()) {
    const SuiteRun run = run_suite_against(m.name);
    const bool caught = run.exit_code == 1 && !run.failed_test.empty();
    survivors += caught ? 0 : 1;
    std::printf("%-44s %-7s %-70s %8.2f\n", m.name.c_str(), caught ? "yes" : "NO", run.failed_test.c_str(),
                run.seconds);
    EXPECT_TRUE(caught) << m.name << " survived the property suite (exit " << run.exit_code
                        << (run.signalled ? ", killed by a signal" : "") << "): " << m.description;
  }
  std::fflush(stdout);
  EXPECT_EQ(survivors, 0);
}

}  // namespace
}  // namespace qsa
