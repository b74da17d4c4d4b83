// `qsacheck check`, `replay` and `mutants` end to end: a campaign passes on the reference, a
// deliberately broken backend is caught with a minimal reproducer that `replay` confirms, and the
// JSON report is machine-readable.

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "qsa/backends/builtin.hpp"
#include "qsa/backends/registry.hpp"
#include "qsa/engine/shrinker.hpp"
#include "qsa/traces/scenario_file.hpp"
#include "qsa/traces/simulator.hpp"
#include "qsa/traces/workloads.hpp"
#include "run_command.hpp"

namespace qsa {
namespace {

using testing::run_qsacheck;
using testing::temp_dir;

TEST(CheckCommand, AWorkloadCampaignPassesOnTheReferenceAndWritesJson) {
  const std::string dir = temp_dir();
  const auto r = run_qsacheck(
      "check --backend reference --workload prefix-sharing --scenarios 2 --steps 80 --batches 200 --json " + dir +
      "/report.json");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("RESULT: passed (reference only: checked against the oracle and invariants; no kernel checked"),
            std::string::npos)
      << "a green run of the reference alone must not read as a kernel passing: " << r.out;
  EXPECT_NE(r.out.find("prefix hits"), std::string::npos) << r.out;
  std::ifstream file(dir + "/report.json");
  const auto report = nlohmann::json::parse(file, nullptr, false);
  ASSERT_FALSE(report.is_discarded());
  EXPECT_EQ(report["exit_code"], 0);
  EXPECT_EQ(report["passed"], true);
  EXPECT_NE(report["verdict"].get<std::string>().find("no kernel checked"), std::string::npos);
  EXPECT_TRUE(report["unwritten_outputs"].empty());
  EXPECT_GT(report["coverage"]["steps"].get<int64_t>(), 0);
  EXPECT_GT(report["coverage"]["prefix_hits"].get<int64_t>(), 0);
  // Every step is counted once on a kernel path and once on a grid.
  int64_t path_steps = 0;
  for (const auto& [path, steps] : report["cuda_kernel_paths"]["steps"].items()) path_steps += steps.get<int64_t>();
  int64_t grid_steps = 0;
  for (const auto& [grid, steps] : report["cuda_grids"]["steps"].items()) grid_steps += steps.get<int64_t>();
  EXPECT_EQ(path_steps, report["coverage"]["steps"].get<int64_t>());
  EXPECT_EQ(grid_steps, report["coverage"]["steps"].get<int64_t>());
  // The summary leaves them out: they describe this build's CUDA kernel, which did not run.
  EXPECT_EQ(r.out.find("CUDA kernel"), std::string::npos) << r.out;
}

// Issue 52: the finding comes first (what failed, the reproducer, the replay command), then the
// table, whose lines are as long as each other whatever the names; a CPU backend's summary has no
// CUDA kernel paths and names the input-space gaps only with --input-space. A failing SPEC 8
// example writes a batch reproducer that `replay` fails with the same finding.
TEST(CheckCommand, TheFindingComesFirstAndASpecExampleFailureReplaysAlike) {
  const std::string dir = temp_dir();
  const std::string campaign =
      "check --backend bug:k-work-without-minimum --workload default --scenarios 1 --steps 20 --batches 10 --out " + dir;
  const auto r = run_qsacheck(campaign);
  ASSERT_EQ(r.exit_code, 1) << r.out;
  const size_t failed = r.out.find("\nFAILED SPEC 8 worked examples and ring survival on bug:k-work-without-minimum:\n  ");
  const size_t replay = r.out.find("\nreplay:     qsacheck replay --backend bug:k-work-without-minimum ");
  const size_t table = r.out.find("\ncheck ");
  ASSERT_NE(failed, std::string::npos) << r.out;
  ASSERT_NE(replay, std::string::npos) << r.out;
  ASSERT_NE(table, std::string::npos) << r.out;
  EXPECT_LT(failed, replay) << r.out;
  EXPECT_LT(replay, table) << r.out;
  std::istringstream lines(r.out.substr(table + 1, r.out.find("\n\n", table + 1) - table - 1));
  std::string line;
  std::set<size_t> widths;
  while (std::getline(lines, line)) widths.insert(line.size());
  EXPECT_EQ(widths.size(), 1u) << "every line of the table is as long as its header: " << r.out;
  EXPECT_EQ(r.out.find("CUDA kernel"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("  not reached: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("listed by check --input-space"), std::string::npos) << r.out;

  // The reproducer is the example's batch; its replay states the finding in the same words.
  const size_t at = r.out.find("\nreproducer: ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string file = r.out.substr(at + 13, r.out.find('\n', at + 1) - at - 13);
  EXPECT_NE(file.find("spec8-example"), std::string::npos) << file;
  const size_t finding_at = failed + r.out.substr(failed + 1).find("\n  ") + 4;
  const std::string finding = r.out.substr(finding_at, r.out.find('\n', finding_at) - finding_at);
  const std::string what = finding.substr(finding.find(": ") + 2);  // after the example's name
  const auto replayed = run_qsacheck("replay --backend bug:k-work-without-minimum " + file);
  EXPECT_EQ(replayed.exit_code, 1) << replayed.out;
  EXPECT_NE(replayed.out.find(what), std::string::npos) << "check: " << what << "\nreplay: " << replayed.out;

  const auto listed = run_qsacheck(campaign + " --input-space");
  EXPECT_NE(listed.out.find("  not reached: "), std::string::npos) << listed.out;
}

// Where no kernel can run (no GPU for cuda, no plugin or worker named), a run of the reference
// alone says so in its first and its last line, and --require-kernel makes it "not run" (exit 3).
TEST(CheckCommand, WithoutAKernelTheFirstAndLastLinesSaySoAndRequireKernelIsExitThree) {
  if (backends::cuda_device_count() > 0) GTEST_SKIP() << "a GPU is here: cuda is a kernel to check";
  const std::string dir = temp_dir();
  const std::string campaign = "check --workload default --scenarios 1 --steps 10 --batches 10 --out " + dir;
  const auto plain = run_qsacheck(campaign);
  EXPECT_EQ(plain.exit_code, 0) << plain.out;
  EXPECT_EQ(plain.out.find_first_not_of('\n'), plain.out.find("qsacheck check: no kernel checked"))
      << "the report's first line: " << plain.out;
  const std::string last = plain.out.substr(plain.out.rfind("RESULT: "));
  EXPECT_NE(last.find("no kernel checked"), std::string::npos) << last;
  EXPECT_NE(last.find("--backend plugin:PATH.so"), std::string::npos) << last;
  const auto required = run_qsacheck(campaign + " --require-kernel");
  EXPECT_EQ(required.exit_code, 3) << required.out;
  EXPECT_NE(required.out.find("a kernel (--require-kernel)"), std::string::npos) << required.out;
}

// Named but unusable on this machine (cuda without a GPU): not run (exit 3), in the CUDA build's
// words for a machine without a GPU.
TEST(CheckCommand, ABuiltInBackendThisMachineCannotRunIsNotRun) {
  const auto names = BackendRegistry::global().names();
  if (std::find(names.begin(), names.end(), "cuda") == names.end()) GTEST_SKIP() << "built without CUDA";
  if (backends::cuda_device_count() > 0) GTEST_SKIP() << "a GPU is here";
  const auto r = run_qsacheck("check --backend cuda --workload default --scenarios 1 --steps 10 --batches 10 --out " +
                              temp_dir());
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_NE(r.out.find("cuda cannot run here"), std::string::npos) << r.out;
  if (access("/dev/nvidiactl", F_OK) != 0) {  // braces: EXPECT_NE is an if/else (-Wdangling-else)
    EXPECT_NE(r.out.find("no GPU on this machine"), std::string::npos) << r.out;
  }
}

TEST(CheckCommand, ABrokenBackendIsCaughtWithAMinimalReproducerThatReplayConfirms) {
  const std::string dir = temp_dir();
  const auto r = run_qsacheck(
      "check --backend bug:ring-read-after-commit --workload default --scenarios 1 --steps 300 --batches 0 --out " +
      dir);
  ASSERT_EQ(r.exit_code, 1) << r.out;
  const auto at = r.out.find("reproducer: ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string file = r.out.substr(at + 12, r.out.find('\n', at) - at - 12);
  const traces::ScenarioFile repro = traces::read_scenario_file(file);
  EXPECT_LE(repro.scenario.steps.size(), 4u) << "the shrinker should leave a handful of steps";
  EXPECT_EQ(engine::requests_of(repro.scenario).size(), 1u);

  const auto broken = run_qsacheck("replay --backend bug:ring-read-after-commit " + file);
  EXPECT_EQ(broken.exit_code, 1) << broken.out;
  EXPECT_EQ(broken.out.rfind("replaying " + file, 0), 0u) << "the first line names what is replayed: " << broken.out;
  const auto reference = run_qsacheck("replay " + file);
  EXPECT_EQ(reference.exit_code, 0) << reference.out;
}

TEST(CheckCommand, UnknownBackendAndWorkloadAreUsageErrors) {
  EXPECT_EQ(run_qsacheck("check --backend nosuch").exit_code, 2);
  const auto r = run_qsacheck("check --workload nosuch --batches 0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("unknown-workload"), std::string::npos) << r.out;
}

TEST(ReplayCommand, AContradictoryScenarioIsBadInput) {
  const std::string dir = temp_dir();
  std::ofstream(dir + "/bad.scenario") << "{\"format\": \"qsacheck-scenario\", \"version\": 9}\n";
  const auto r = run_qsacheck("replay " + dir + "/bad.scenario");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("unsupported-version"), std::string::npos) << r.out;
}

TEST(RecordExpected, SimulatedFileGetsDigestsThatReplayComparesAndAMismatchNamesStepAndOutput) {
  const std::string dir = temp_dir();
  const std::string file = dir + "/trace.scenario";
  const traces::Scenario s = traces::simulate(traces::workload_by_name("default"), 5, 12);
  const auto simulated = run_qsacheck("simulate --workload default --seed 5 --steps 12 " + file);
  ASSERT_EQ(simulated.exit_code, 0) << simulated.out;
  EXPECT_NE(simulated.out.find("wrote " + file + ": 12 steps"), std::string::npos) << simulated.out;
  const traces::ScenarioFile written = traces::read_scenario_file(file);
  EXPECT_TRUE(written.scenario.config == s.config && written.scenario.steps.size() == s.steps.size() &&
              written.digests.empty())
      << "qsacheck simulate writes traces::simulate's scenario";

  const auto recorded = run_qsacheck("record-expected " + file);
  ASSERT_EQ(recorded.exit_code, 0) << recorded.out;
  EXPECT_NE(recorded.out.find("recorded " + file + ": " + std::to_string(s.steps.size()) + " step digests"),
            std::string::npos)
      << recorded.out;
  traces::ScenarioFile back = traces::read_scenario_file(file);
  ASSERT_EQ(back.digests.size(), s.steps.size());
  EXPECT_EQ(back.digests[0].outputs.size(), traces::kDigestOutputs.size());

  const auto replayed = run_qsacheck("replay " + file);
  EXPECT_EQ(replayed.exit_code, 0) << replayed.out;
  EXPECT_NE(replayed.out.find("every digest matches"), std::string::npos) << replayed.out;

  // A stale digest at step 3: the replay names the step and the output.
  back.digests[3].set("cache.ring", back.digests[3].find("cache.ring").value() ^ 0x10);
  traces::write_scenario_file(file, back.scenario, back.digests);
  const auto stale = run_qsacheck("replay " + file);
  EXPECT_EQ(stale.exit_code, 1) << stale.out;
  EXPECT_NE(stale.out.find("FAIL step 3: digest: output cache.ring: expected "), std::string::npos) << stale.out;

  // record-expected repairs it, and says how many steps changed.
  const auto again = run_qsacheck("record-expected " + file);
  EXPECT_EQ(again.exit_code, 0) << again.out;
  EXPECT_NE(again.out.find("(1 changed)"), std::string::npos) << again.out;
  EXPECT_EQ(run_qsacheck("replay " + file).exit_code, 0);
}

TEST(MutantsCommand, ListsEveryPlantedBug) {
  const auto r = run_qsacheck("mutants --list");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("bug:ring-read-after-commit"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bug:fp8-no-saturation"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace qsa
