// `qsacheck replay [--backend NAME] FILE...`: re-runs scenario files (reproducers, recorded traces)
// step by step with every check of the scenario runner, and compares each step's outputs with the
// digests a recorded trace carries; a .json file is a metadata input (replay_input.hpp). The first
// line names what is replayed.
// `qsacheck record-expected FILE...`: rewrites the files' digests from the reference.
// `qsacheck simulate --workload NAME [--seed S] [--steps N] FILE`: writes a simulated scenario.

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "backend_choice.hpp"
#include "commands.hpp"
#include "float_tolerance_option.hpp"
#include "output.hpp"
#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/scenario_file.hpp"
#include "qsa/traces/scenario_runner.hpp"
#include "qsa/traces/shrinker.hpp"
#include "qsa/traces/simulator.hpp"
#include "qsa/traces/workloads.hpp"
#include "replay_input.hpp"

namespace qsa::cli {
namespace {

std::string describe(const traces::ScenarioConfig& c) {
  return "C=" + std::to_string(c.compress_ratio) + " B=" + std::to_string(c.block_size) +
         " drafts=" + std::to_string(c.num_speculative_tokens) + " R=" + std::to_string(c.ring_capacity) +
         " D=" + std::to_string(c.head_dim) + " rd=" + std::to_string(c.rotary_dim) +
         " HQ=" + std::to_string(c.num_heads) + (c.mrope ? " MRoPE" : "") + " " + to_string(c.store_dtype);
}

// --float-tolerance when given, else the tolerance the file was found under (a reproducer of a
// tolerance-mode finding carries it), else exact.
traces::FloatTolerance tolerance_for(const std::optional<traces::FloatTolerance>& flag,
                                     const traces::ScenarioFile& file) {
  return flag ? *flag : file.float_tolerance;
}

int replay(const std::vector<std::string>& files, const std::string& backend_name, const std::string& tolerance_text) {
  Error error;
  std::optional<traces::FloatTolerance> flag;
  if (!tolerance_text.empty()) {
    traces::FloatTolerance parsed;
    if (!parse_float_tolerance_flag(tolerance_text, &parsed, &error)) return report_error(error);
    flag = parsed;
  }
  auto backend = open_backend(backend_name, &error);
  if (!backend) return report_error(error);
  int exit_code = kExitOk;
  for (const std::string& path : files) {
    if (is_metadata_input_file(path)) {
      if (const int code = replay_metadata_input(path, *backend); code != kExitOk) exit_code = code;
      continue;
    }
    const traces::ScenarioFile file = traces::read_scenario_file(path);
    const traces::Scenario& s = file.scenario;
    const bool digests = !file.digests.empty();
    const traces::FloatTolerance tolerance = tolerance_for(flag, file);
    std::cout << "replaying " << path << ": " << s.steps.size() << " steps, " << traces::requests_of(s).size()
              << " requests of workload " << s.config.workload << " (seed " << s.config.seed << ", "
              << describe(s.config) << ") on " << backend_name << (digests ? ", comparing the recorded digests" : "")
              << "; float comparison " << tolerance.to_string()
              << (tolerance.exact() ? "" : " (SPEC 6 tolerance mode, not an exact result)")
              << (flag && *flag != file.float_tolerance
                      ? " (the file was written under " + file.float_tolerance.to_string() + ")"
                      : "")
              << std::endl;
    traces::RunOptions options;
    options.expected_digests = digests ? &file.digests : nullptr;
    options.float_tolerance = tolerance;
    traces::StepFloatStatistics statistics(tolerance.ulps);
    if (!tolerance.exact()) options.float_statistics = &statistics;
    traces::ScenarioRunner runner(s.config, *backend, options);
    std::optional<traces::RunFailure> failure;
    for (const traces::StepRecord& step : s.steps)
      if ((failure = runner.step(step))) break;
    if (!tolerance.exact() && runner.step_update_supported())
      std::cout << "  " << statistics.compressed.to_string("compressed cache") << "\n  "
                << statistics.q_out.to_string("q_out") << std::endl;
    if (failure) {
      std::cout << "FAIL " << traces::to_string(*failure) << std::endl;
      exit_code = failure->invalid_scenario ? kExitUsage : kExitMismatch;
      continue;
    }
    std::cout << "passed: " << s.steps.size() << " steps" << (digests ? ", every digest matches" : "")
              << (tolerance.exact() ? "" : " within " + tolerance.to_string())
              << (runner.step_update_supported() ? "" : " (metadata only: the backend has no step update)")
              << std::endl;
    if (!runner.step_update_supported() && exit_code == kExitOk) exit_code = kExitIncomplete;
  }
  return exit_code;
}

// Replays each file on the reference with every check and rewrites it with the digest of every
// step. A file that fails a check is left untouched.
int record_expected(const std::vector<std::string>& files) {
  Error error;
  auto reference = open_backend("reference", &error);
  if (!reference) return report_error(error);
  int exit_code = kExitOk;
  for (const std::string& path : files) {
    const traces::ScenarioFile file = traces::read_scenario_file(path);
    const traces::Scenario& s = file.scenario;
    traces::RunOptions options;
    options.compute_digests = true;
    traces::ScenarioRunner runner(s.config, *reference, options);
    std::vector<traces::StepDigest> digests;
    std::optional<traces::RunFailure> failure;
    for (const traces::StepRecord& step : s.steps) {
      if ((failure = runner.step(step))) break;
      digests.push_back(runner.last_digest());
    }
    if (failure) {
      std::cout << "FAIL " << path << ": " << traces::to_string(*failure) << " (file left unchanged)" << std::endl;
      exit_code = failure->invalid_scenario ? kExitUsage : kExitMismatch;
      continue;
    }
    size_t changed = 0;
    for (size_t i = 0; i < digests.size(); ++i)
      changed += i >= file.digests.size() || file.digests[i] != digests[i] ? 1 : 0;
    const std::string temporary = path + ".recording";
    traces::write_scenario_file(temporary, s, digests);
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
      std::remove(temporary.c_str());
      return report_error(Error{"output", -1, "unwritable", "cannot replace " + path});
    }
    std::cout << "recorded " << path << ": " << digests.size() << " step digests from the reference (" << changed
              << " changed)" << std::endl;
  }
  return exit_code;
}

int simulate(const std::string& workload, uint64_t seed, int64_t steps, const std::string& path) {
  const traces::Scenario s = traces::simulate(traces::workload_by_name(workload), seed, steps);
  traces::write_scenario_file(path, s);
  const traces::Coverage c = traces::coverage_of(s);
  std::cout << "wrote " << path << ": " << s.steps.size() << " steps, " << c.requests << " requests of workload "
            << workload << " (seed " << seed << ", " << describe(s.config) << "); " << c.rows << " rows, "
            << c.ring_wraps << " ring wraps, " << c.drafts_rejected << " drafts rejected, " << c.preemptions
            << " preemptions, " << c.prefix_hits << " prefix hits, " << c.padded_steps << " padded steps" << std::endl;
  return kExitOk;
}

}  // namespace

void add_simulate_command(CLI::App& app, int* exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "simulate",
      "Write the scenario a workload model produces (traces/FORMAT.md, no digests), e.g. to read it\n"
      "or to record a trace: qsacheck simulate --workload prefix-sharing --steps 200 FILE, then\n"
      "qsacheck record-expected FILE. The same workload, seed and steps give the same file.");
  auto workload = std::make_shared<std::string>("default");
  auto seed = std::make_shared<uint64_t>(1);
  auto steps = std::make_shared<int64_t>(200);
  auto file = std::make_shared<std::string>();
  cmd->add_option("--workload", *workload, "Workload model:\n" + traces::workload_help())->capture_default_str();
  cmd->add_option("--seed", *seed, "Scenario seed")->capture_default_str();
  cmd->add_option("--steps", *steps, "Steps (fewer when a bounded workload ends first)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("file", *file, "Scenario file to write")->required();
  cmd->callback([=] { *exit_code = simulate(*workload, *seed, *steps, *file); });
}

void add_record_expected_command(CLI::App& app, int* exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "record-expected",
      "Rewrite the per-step digests of scenario files from the reference: each file is replayed on\n"
      "the reference with every check, then rewritten in place with the digest of every step's\n"
      "outputs (traces/FORMAT.md, \"Digests\"). Run it deliberately after a change to the reference,\n"
      "the content functions or a recorded scenario, and review the diff: `qsacheck replay` and the\n"
      "`trace` tests compare against these digests. A file that fails a check is left unchanged.\n"
      "Exit 0 all recorded, 1 a check failed, 2 a file is unreadable or contradicts SPEC 7.\n"
      "Example: qsacheck record-expected traces/recorded/*.scenario");
  auto files = std::make_shared<std::vector<std::string>>();
  cmd->add_option("files", *files, "Scenario files to rewrite")->required()->check(CLI::ExistingFile);
  cmd->callback([=] { *exit_code = record_expected(*files); });
}

void add_replay_command(CLI::App& app, int* exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "replay",
      "Re-run scenario files (traces/FORMAT.md) step by step with every check: reproducers written\n"
      "by `qsacheck check`, recorded traces. When a file carries digests (traces/recorded/), each\n"
      "step's outputs must also match them; a mismatch names the step and the first differing output.\n"
      "A FILE.json is one metadata input (the reproducer `check` writes for a failing batch), judged\n"
      "against the reference: status, error (field, index, rule), untouched output, every output.\n"
      "Exit 0 all passed, 1 a check failed, 2 a file is unreadable or contradicts SPEC 7, 3 passed\n"
      "but the backend has no step update.\n"
      "Example: qsacheck replay --backend reference qsacheck-repro-cuda-default-1000003.scenario");
  auto files = std::make_shared<std::vector<std::string>>();
  auto backend = std::make_shared<std::string>("reference");
  cmd->add_option("files", *files, "Scenario files, or metadata inputs (.json)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--backend", *backend, "Backend to replay on")->capture_default_str();
  auto tolerance = std::make_shared<std::string>();
  cmd->add_option("--float-tolerance", *tolerance,
                  "exact or row-ulp:N (SPEC 6's tolerance mode for compressed rows and q_out; everything else\n"
                  "stays exact). Default: the tolerance the file states (a reproducer of a tolerance-mode\n"
                  "finding carries it), else exact");
  cmd->callback([=] { *exit_code = replay(*files, *backend, *tolerance); });
}

}  // namespace qsa::cli
