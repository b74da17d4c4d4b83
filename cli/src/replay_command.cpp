// `qsacheck replay [--backend NAME] [--float-tolerance exact|row-ulp:N] [--json FILE|-] FILE...`: re-runs scenario
// files (reproducers, recorded traces) step by step with every check of the scenario runner, and compares each step's
// outputs with the digests a recorded trace carries; a .json file is a metadata input
// (replay_input.hpp). Every file is read and checked first, so a bad one is exit 2 before anything
// runs. The first line of each file's report names it.

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend_choice.hpp"
#include "commands.hpp"
#include "float_tolerance_option.hpp"
#include "junit_report.hpp"
#include "output.hpp"
#include "output_file.hpp"
#include "qsa/engine/float_statistics.hpp"
#include "qsa/engine/scenario_runner.hpp"
#include "qsa/engine/shrinker.hpp"
#include "qsa/engine/step_loop.hpp"
#include "qsa/traces/json_reader.hpp"
#include "replay_input.hpp"
#include "scenario_description.hpp"
#include "scenario_files.hpp"
#include "stop_request.hpp"
#include "worker_options.hpp"

namespace qsa::cli {
namespace {

// --float-tolerance when given, else the tolerance the file was found under (a reproducer of a
// tolerance-mode finding carries it), else exact.
traces::FloatTolerance tolerance_for(const std::optional<traces::FloatTolerance>& flag,
                                     const traces::FloatTolerance& in_file) {
  return flag ? *flag : in_file;
}

int replay(const std::vector<std::string>& paths, const std::string& backend_name,
           const std::optional<traces::FloatTolerance>& flag, const std::string& junit_path, ReportOutput output) {
  // SIGINT, SIGTERM, SIGHUP: stop between steps and write the partial report, as check does
  // (docs/limits.md, "Stopping early"; replay used to die with no report).
  install_stop_handlers();
  Error error;
  auto backend = open_backend(backend_name, &error);
  if (!backend) return report_error(error);
  std::vector<std::string> scenario_paths;
  std::vector<MetadataInputFile> inputs;
  for (const std::string& path : paths)
    if (is_metadata_input_file(path))
      inputs.push_back(read_metadata_input_file(path));
    else
      scenario_paths.push_back(path);
  const std::vector<CheckedScenarioFile> files = check_scenario_files(scenario_paths);
  std::ostream& out = output.human();
  nlohmann::json results = nlohmann::json::array();
  int exit_code = kExitOk;
  bool printed = !inputs.empty();  // a metadata input prints its line first
  for (const MetadataInputFile& input : inputs) {
    if (stop_requested()) {
      results.push_back({{"file", input.path}, {"stopped_by", stop_reason()}, {"steps_run", 0}});
      continue;
    }
    nlohmann::json result;
    if (const int code = replay_metadata_input(input, *backend, out, &result); code != kExitOk) exit_code = code;
    results.push_back(std::move(result));
  }
  for (const CheckedScenarioFile& named : files) {
    const int64_t steps = named.steps;
    const bool digests = named.digests;
    const traces::FloatTolerance tolerance = tolerance_for(flag, named.float_tolerance);
    engine::RunOptions options;
    options.float_tolerance = tolerance;
    engine::StepFloatStatistics statistics(tolerance.ulps);
    if (!tolerance.exact()) options.float_statistics = &statistics;
    // The caches are reserved before the file's first line, so a reservation the machine refuses
    // is exit 2 with the JSON line alone (docs/json-schema.md, "Errors") when nothing was printed
    // yet; after another file's lines it is this file stopped before its first step (exit 3), and
    // the replay goes on with the next file.
    std::optional<engine::ScenarioRunner> reserved;
    try {
      reserved.emplace(named.config, *backend, options);
    } catch (const std::bad_alloc&) {
      if (!printed) throw;
      out << "not run: " << named.path << ": out of memory reserving its caches" << std::endl;
      results.push_back({{"file", named.path}, {"stopped_by", "out of memory reserving its caches"}, {"steps_run", 0},
                         {"steps", steps}, {"digests", digests}, {"float_tolerance", tolerance.to_string()},
                         {"seconds", 0.0}});
      if (exit_code == kExitOk) exit_code = kExitIncomplete;
      continue;
    }
    engine::ScenarioRunner& runner = *reserved;
    out << "replaying " << named.path << ": " << steps << " steps, " << named.requests << " requests of workload "
        << named.config.workload << " (seed " << named.config.seed << ", " << describe(named.config) << ") on "
        << backend_name << (digests ? ", comparing the recorded digests" : "") << "; float comparison "
        << tolerance.to_string() << (tolerance.exact() ? "" : " (SPEC 6 tolerance mode, not an exact result)")
        << (flag && *flag != named.float_tolerance
                ? " (the file was written under " + named.float_tolerance.to_string() + ")"
                : "")
        << std::endl;
    printed = true;
    // The file again, one step at a time: the runner compares each step's digest as it comes.
    const std::unique_ptr<std::istream> in = named.open();
    traces::ScenarioReader reader(*in);
    traces::StepRecord step;
    std::optional<traces::StepDigest> digest;
    const engine::StepSource next = [&]() -> const traces::StepRecord* {
      if (!reader.next(&step, &digest)) return nullptr;
      if (digest) runner.expect_next_digest(std::move(*digest));
      return &step;
    };
    const auto start = std::chrono::steady_clock::now();
    engine::StepObserver observer;
    observer.stop = stop_requested;
    const engine::StepLoopResult run = engine::run_steps(runner, next, observer);
    const std::optional<engine::RunFailure> failure = run.failure;
    const bool stopped = run.stopped;
    const int64_t steps_run = run.steps_run;
    nlohmann::json result = {
        {"file", named.path},
        {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()},
        {"steps", steps},
        {"digests", digests},
        {"float_tolerance", tolerance.to_string()}};
    if (stopped) {
      out << "STOPPED by " << stop_reason() << " after " << steps_run << " of " << steps
          << " steps, each passed; the rest not run" << std::endl;
      result["stopped_by"] = stop_reason();
      result["steps_run"] = steps_run;
      results.push_back(std::move(result));
      if (exit_code == kExitOk) exit_code = kExitIncomplete;
      continue;
    }
    if (!tolerance.exact() && runner.step_update_supported()) {
      out << "  " << statistics.compressed.to_string("compressed cache") << "\n  "
          << statistics.q_out.to_string("q_out") << std::endl;
      result["float_statistics"] = {{"cache.compressed", engine::to_json(statistics.compressed)},
                                    {"q_out", engine::to_json(statistics.q_out)}};
    }
    if (failure) {
      out << "FAIL " << engine::to_string(*failure) << std::endl;
      // Files were checked up front, so a failure is the backend's (an invalid step is a safety net).
      exit_code = failure->invalid_scenario ? kExitUsage : kExitMismatch;
      result["passed"] = false;
      result["failure"] = engine::to_string(*failure);
      result["failing_step"] = failure->step;
      results.push_back(std::move(result));
      continue;
    }
    out << "passed: " << steps << " steps" << (digests ? ", every digest matches" : "")
        << (tolerance.exact() ? "" : " within " + tolerance.to_string())
        << (runner.step_update_supported() ? "" : " (metadata only: the backend has no step update)") << std::endl;
    nlohmann::json declined = nlohmann::json::array();
    for (const std::string& what : runner.declined()) {
      out << "not run (outside the backend's capabilities; digests not compared): " << what << std::endl;
      declined.push_back(what);
    }
    result["passed"] = true;
    result["step_update_checked"] = runner.step_update_supported();
    result["not_run"] = declined;
    results.push_back(std::move(result));
    if ((!runner.step_update_supported() || !runner.declined().empty()) && exit_code == kExitOk)
      exit_code = kExitIncomplete;
  }
  nlohmann::json report = {
      {"schema_version", 1}, {"command", "replay"}, {"backend", backend_name}, {"exit_code", exit_code}, {"files", results}};
  if (stop_requested()) {
    if (exit_code == kExitOk) report["exit_code"] = exit_code = kExitIncomplete;
    report["stopped_by"] = stop_reason();
  }
  if (!junit_path.empty()) write_junit(junit_path, replay_junit(report), &output);
  return output.finish(std::move(report), exit_code);
}

}  // namespace

void add_replay_command(CLI::App& app, CommandJob* job) {
  CLI::App* cmd = app.add_subcommand(
      "replay",
      "Re-run scenario files (traces/FORMAT.md) step by step with every check: reproducers written\n"
      "by `qsacheck check`, recorded traces. When a file carries digests (traces/recorded/), each\n"
      "step's outputs must also match them; a mismatch names the step and the first differing output.\n"
      "A FILE.json is one metadata input (the reproducer `check` writes for a failing batch), judged\n"
      "against the reference: status, error (field, index, rule), untouched output, every output.\n"
      "Every file is read and checked before any runs. Exit 0 all passed, 1 a check failed, 2 a file\n"
      "is unreadable or contradicts SPEC 7 (nothing runs), 3 passed but the backend has no step update\n"
      "or the run was stopped (SIGINT, SIGTERM, SIGHUP: the partial report lists each file's steps run).\n"
      "Example: qsacheck replay --backend reference qsacheck-repro-cuda-default-1000003.scenario");
  auto files = std::make_shared<std::vector<std::string>>();
  auto backend = std::make_shared<std::string>("reference");
  auto json_path = std::make_shared<std::string>();
  cmd->add_option("files", *files, "Scenario files, or metadata inputs (.json)")->required();
  cmd->add_option("--backend", *backend, "Backend to replay on")->capture_default_str();
  auto tolerance = std::make_shared<std::string>();
  cmd->add_option("--float-tolerance", *tolerance,
                  "exact or row-ulp:N (SPEC 6's tolerance mode for compressed rows and q_out; everything else\n"
                  "stays exact). Default: the tolerance the file states (a reproducer of a tolerance-mode\n"
                  "finding carries it), else exact");
  cmd->add_option("--json", *json_path, "Also write the result as JSON to FILE; - writes it alone on stdout");
  auto junit_path = std::make_shared<std::string>();
  cmd->add_option("--junit", *junit_path,
                  "Also write the result as JUnit XML to FILE for CI systems: one testcase per file, a failure\n"
                  "holding the finding and the replay command, skipped for what did not run");
  auto worker = std::make_shared<WorkerOptions>();
  add_worker_options(cmd, worker.get());
  cmd->callback([=] {
    Error error;
    *backend = apply_worker_options(*worker, *backend);
    std::optional<traces::FloatTolerance> flag;
    if (!tolerance->empty()) {
      traces::FloatTolerance parsed;
      if (!parse_float_tolerance_flag(*tolerance, &parsed, &error)) throw InputError(error);
      flag = parsed;
    }
    if (!open_backend(*backend, &error)) throw InputError(error);
    ReportOutput output(*json_path);
    output.check();
    if (!junit_path->empty()) check_output_file(*junit_path, "--junit");
    std::vector<NamedPath> inputs;
    for (const std::string& f : *files) inputs.push_back({f, "files"});
    check_distinct_paths(inputs, {{*json_path, "--json"}, {*junit_path, "--junit"}});
    *job = [=] { return replay(*files, *backend, flag, *junit_path, output); };
  });
}

}  // namespace qsa::cli
