// `qsacheck check`: the main job. On every chosen backend: the SPEC 8 examples, the metadata
// invariants on generated batches, then simulated scenarios step by step against the model
// oracle, the invariants and the reference. On the first disagreement it shrinks the scenario,
// writes a reproducer that `qsacheck replay` re-runs, and exits 1.

#include <fstream>
#include <memory>

#include "checker.hpp"
#include "commands.hpp"
#include "float_tolerance_option.hpp"
#include "output.hpp"
#include "qsa/traces/workloads.hpp"

namespace qsa::cli {

void add_check_command(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<CheckOptions>();
  CLI::App* check = app.add_subcommand(
      "check",
      "Run the verification campaign on the chosen backends (default: every available one):\n"
      "the SPEC 8 examples, the metadata on generated and on invalid batches, and simulated scenarios\n"
      "stepped through each backend, checked against the model oracle (SPEC 7), the invariants and\n"
      "the reference after every step. With no arguments: the default campaign, about a minute.\n"
      "Exit 0: every check ran and passed; 1: a disagreement (a shrunk reproducer is written and\n"
      "the replay command printed); 2: bad usage; 3: what ran passed but something could not run.");
  check->add_option("--backend", options->backends, "Backend to check (repeatable); default every available one");
  auto* workload =
      check->add_option("--workload", options->workload, "Run only this workload model:\n" + traces::workload_help());
  check->add_option("--requests-csv", options->requests_csv, "Workload from your own CSV of prompt/output lengths")
      ->excludes(workload);
  check->add_option("--steps", options->steps, "Steps per scenario (default 600)")->check(CLI::PositiveNumber);
  check->add_option("--scenarios", options->scenarios, "Scenarios per workload with --workload or --requests-csv")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  check->add_option("--seed", options->seed, "Campaign seed (every scenario and batch derives from it)")
      ->capture_default_str();
  check->add_option("--batches", options->batches, "Generated metadata batches per backend")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  add_float_tolerance_option(check, &options->float_tolerance);
  check->add_option("--json", options->json_path, "Also write the result as JSON to FILE");
  check->add_option("--out", options->out_dir, "Folder for reproducers")->capture_default_str();
  check->callback([=] {
    const CheckReport report = Checker(*options).run();
    if (report.setup_error) {
      *exit_code = report_error(*report.setup_error);
      return;
    }
    print_report(report);
    if (!options->json_path.empty()) std::ofstream(options->json_path) << report_to_json(report).dump(2) << "\n";
    *exit_code = report.exit_code();
  });
}

}  // namespace qsa::cli
