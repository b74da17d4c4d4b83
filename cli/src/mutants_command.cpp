// `qsacheck mutants`: runs the check campaign against every planted bug (docs/mutants.md), with
// no shrinking, and prints the kill table. Exit 0 only when every planted bug is caught. The CPU
// set always; the planted metadata kernels too where the CUDA backend can run (they keep the
// shipped step update). The planted step kernels are built for D = 32 and 128 and the fast layout
// only, so a campaign input outside those would "catch" them by a refusal: the GPU test
// gpu_step_update_planted_tests drives them on the scenarios they are built for instead.

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "checker.hpp"
#include "commands.hpp"
#include "output.hpp"
#include "qsa/backends/planted.hpp"
#include "qsa/backends/registry.hpp"
#include "qsa/traces/workloads.hpp"

namespace qsa::cli {
namespace {

struct MutantOptions {
  std::string workload;
  int64_t steps = 0;
  uint64_t seed = 1;
  bool list = false;
};

// The first failing row of a report: which check caught the bug and where.
std::pair<std::string, std::string> first_catch(const CheckReport& report) {
  for (const CheckRow& row : report.rows)
    if (row.failures > 0) return {row.check, row.first_failure};
  return {"", ""};
}

// The planted bugs this machine can run: the CPU set, then the metadata kernels where "cuda" runs.
std::vector<backends::PlantedBug> runnable_planted_bugs(std::string* cuda_skipped) {
  std::vector<backends::PlantedBug> bugs = backends::planted_cpu_bugs();
  const auto& kernels = backends::planted_cuda_metadata_bugs();
  if (kernels.empty()) return bugs;
  std::string reason;
  auto cuda = BackendRegistry::global().create("cuda");
  if (cuda && cuda->probe(&reason) == Status::kOk)
    bugs.insert(bugs.end(), kernels.begin(), kernels.end());
  else
    *cuda_skipped = std::to_string(kernels.size()) + " planted CUDA metadata kernels not run: " + reason;
  return bugs;
}

int run_mutants(const MutantOptions& options) {
  std::string cuda_skipped;
  const std::vector<backends::PlantedBug> bugs = runnable_planted_bugs(&cuda_skipped);
  if (options.list) {
    for (const backends::PlantedBug& m : bugs) std::printf("%-44s %s\n", m.name.c_str(), m.description.c_str());
    if (!cuda_skipped.empty()) std::printf("(%s)\n", cuda_skipped.c_str());
    return kExitOk;
  }
  std::printf("%-44s %-7s %-48s %9s\n", "planted bug", "caught", "first caught by", "seconds");
  int survivors = 0;
  for (const backends::PlantedBug& m : bugs) {
    CheckOptions check;
    check.backends = {m.name};
    check.workload = options.workload;
    check.steps = options.steps;
    check.seed = options.seed;
    check.batches = 1000;
    check.shrink = false;
    check.quiet = true;
    const auto start = std::chrono::steady_clock::now();
    const CheckReport report = Checker(check).run();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto [by, detail] = first_catch(report);
    const bool caught = report.failed();
    survivors += caught ? 0 : 1;
    std::string where = by;
    if (report.first_failure_step >= 0) where += ", step " + std::to_string(report.first_failure_step);
    std::printf("%-44s %-7s %-48s %9.2f\n", m.name.c_str(), caught ? "yes" : "NO", caught ? where.c_str() : "-",
                seconds);
    if (caught) std::printf("%-44s         %.110s\n", "", detail.c_str());
    std::fflush(stdout);
  }
  std::printf("\nknown escapes (not registered; docs/mutants.md says why no check can see them):\n");
  for (const backends::PlantedBug& m : backends::known_escapes())
    std::printf("  %-42s %s\n", m.name.c_str(), m.description.c_str());
  if (!cuda_skipped.empty()) std::printf("\n(%s)\n", cuda_skipped.c_str());
  std::printf("\n%s\n",
              survivors == 0 ? "RESULT: every planted bug was caught" : "RESULT: FAILED: some planted bugs survived");
  return survivors == 0 ? kExitOk : kExitMismatch;
}

}  // namespace

void add_mutants_command(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<MutantOptions>();
  CLI::App* cmd = app.add_subcommand(
      "mutants",
      "Run the check campaign against every planted bug (realistic kernel mistakes, docs/mutants.md)\n"
      "and print the kill table: caught or not, by which check, where, and how fast.\n"
      "Exit 0 only when every planted bug is caught.");
  cmd->add_flag("--list", options->list, "List the planted bugs and exit");
  cmd->add_option("--workload", options->workload, "Use only this workload model (default: the default campaign)");
  cmd->add_option("--steps", options->steps, "Steps per scenario")->check(CLI::PositiveNumber);
  cmd->add_option("--seed", options->seed, "Campaign seed")->capture_default_str();
  cmd->callback([=] { *exit_code = run_mutants(*options); });
}

}  // namespace qsa::cli
