// `qsacheck check`: the main job. On every chosen backend: the SPEC 8 examples, the metadata
// invariants on generated batches, then simulated scenarios step by step against the model
// oracle, the invariants and the reference. On the first disagreement it shrinks the scenario,
// writes a reproducer that `qsacheck replay` re-runs, and exits 1. SIGINT, SIGTERM and
// --time-budget end it early with the partial report (exit 1 if something was found, else 3).

#include <algorithm>
#include <filesystem>
#include <memory>

#include "backend_choice.hpp"
#include "check_summary.hpp"
#include "checker.hpp"
#include "commands.hpp"
#include "float_tolerance_option.hpp"
#include "geometry_options.hpp"
#include "input_space_text.hpp"
#include "junit_report.hpp"
#include "number_options.hpp"
#include "output.hpp"
#include "output_file.hpp"
#include "qsa/backends/builtin.hpp"
#include "qsa/backends/plugin_backend.hpp"
#include "qsa/engine/input_space.hpp"
#include "qsa/engine/input_space_report.hpp"
#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/workloads.hpp"
#include "request_log_options.hpp"
#include "scale_out_options.hpp"
#include "stop_request.hpp"
#include "worker_options.hpp"

namespace qsa::cli {
namespace {

// The options as typed: numbers are parsed by number_options.hpp, so a bad one names its option.
struct CheckArguments {
  CheckOptions options;
  RequestLogArguments requests_log;
  std::string steps, scenarios, seed = "1", batches = "3000", time_budget;
  std::string shard, jobs, devices, max_findings = "10", allow_excluded;
  WorkerOptions worker;
  GeometryOptions geometry;
  bool list_input_space = false;  // --input-space: the summary lists what the campaign missed
};

// --out may be missing (run_check creates it, with its parents): its nearest existing ancestor must
// then be a folder qsacheck can write into.
void check_out_folder(const std::string& path) {
  std::filesystem::path existing = std::filesystem::absolute(path).lexically_normal();
  std::error_code ec;
  while (!std::filesystem::exists(existing, ec) && existing.has_parent_path() && existing != existing.parent_path())
    existing = existing.parent_path();
  check_output_directory(existing.string(), "--out");
}

// Everything that can be known bad before the campaign: numbers, names, output paths.
CheckOptions validated(const CheckArguments& a, double* time_budget) {
  CheckOptions o = a.options;
  if (!a.steps.empty()) o.steps = parse_integer_option("--steps", a.steps, 1, int64_t{1} << 24);
  if (!a.scenarios.empty() && o.workload.empty() && o.requests_csv.empty() && a.requests_log.path.empty())
    throw InputError(Error{"--scenarios", -1, "needs-workload",
                                   "--scenarios sets how many scenarios one workload runs: name it with --workload, "
                                   "--requests-csv or --requests (the default campaign fixes its own per workload)"});
  if (!a.scenarios.empty()) o.scenarios = parse_integer_option("--scenarios", a.scenarios, 1, int64_t{1} << 16);
  o.geometry = parse_geometry_options(a.geometry);
  o.seed = parse_seed_option("--seed", a.seed);
  o.batches = parse_integer_option("--batches", a.batches, 0, int64_t{1} << 30);
  *time_budget = a.time_budget.empty() ? 0 : parse_seconds_option("--time-budget", a.time_budget);
  traces::FloatTolerance tolerance;
  Error tolerance_error;
  if (!parse_float_tolerance_flag(o.float_tolerance, &tolerance, &tolerance_error))
    throw InputError(tolerance_error);
  o.max_findings = parse_integer_option("--max-findings", a.max_findings, 1, int64_t{1} << 20);
  if (!a.shard.empty()) {
    o.shard = parse_shard_option(a.shard);
    o.keep_going = true;  // a shard collects its findings; the merge judges the campaign
  }
  if (!a.devices.empty() && o.backends.empty())
    throw InputError(
        Error{"--devices", -1, "needs-backend", "--devices spreads a GPU backend over GPUs: name it (--backend cuda)"});
  if (!a.devices.empty()) o.devices = parse_devices_option(a.devices, backends::cuda_device_count());
  o.jobs = a.jobs.empty() ? std::max<int64_t>(1, static_cast<int64_t>(o.devices.size()))
                          : parse_integer_option("--jobs", a.jobs, 1, 256);
  apply_worker_options(a.worker, &o.backends);
  const std::vector<std::string> built_in = BackendRegistry::global().names(/*include_hidden=*/true);
  for (const std::string& name : o.backends) {
    Error error;
    const auto backend = open_backend(name, &error);
    // A built-in backend this machine cannot run is "not run" (exit 3), judged by the campaign.
    if (!backend && error.rule == "unavailable" && std::find(built_in.begin(), built_in.end(), name) != built_in.end())
      continue;
    if (!backend) throw InputError(error);
    if (o.jobs > 1 && dynamic_cast<const backends::PluginBackend*>(backend.get()) != nullptr)
      throw InputError(Error{"--jobs", -1, "plugin-single-threaded",
                                     name + ": the plugin ABI does not promise calls from several threads at once "
                                            "(docs/plugin-abi.md); check plugins with --jobs 1"});
    if (!o.devices.empty() && !create_backend(name, o.devices[0]))
      throw InputError(Error{"--devices", -1, "not-a-device-backend",
                                     name + " has no device ordinal (a CPU backend); --devices spreads GPU backends "
                                            "(cuda) over GPUs; --jobs N runs any backend on N CPU threads"});
  }
  if (!o.workload.empty()) traces::with_geometry(traces::workload_by_name(o.workload), o.geometry);
  if (!a.requests_log.path.empty()) o.requests_log = parse_request_log_arguments(a.requests_log);
  if (!a.allow_excluded.empty()) {
    const std::set<std::string> ids = read_key_list("--allow-excluded", a.allow_excluded);
    for (const std::string& id : ids) {
      const auto& classes = engine::input_classes();
      if (std::none_of(classes.begin(), classes.end(), [&](const engine::InputClass& c) { return id == c.id; }))
        throw InputError(Error{"--allow-excluded", -1, "unknown-class",
                                       "\"" + id + "\" is not an input class of docs/input-space.md"});
    }
    o.allowed_exclusions = std::vector<std::string>(ids.begin(), ids.end());
  }
  ReportOutput(o.json_path).check();
  if (!o.junit_path.empty()) check_output_file(o.junit_path, "--junit");
  check_out_folder(o.out_dir);
  check_distinct_paths({{o.requests_csv, "--requests-csv"}, {a.requests_log.path, "--requests"},
                        {a.allow_excluded, "--allow-excluded"}},
                       {{o.json_path, "--json"}, {o.junit_path, "--junit"}});
  return o;
}

int run_check(const CheckOptions& options, double time_budget, bool list_input_space) {
  std::error_code ec;  // --out is made here, not while parsing (parse_only writes nothing)
  if (std::filesystem::create_directories(options.out_dir, ec); ec)
    return report_error(Error{"--out", -1, "unwritable", "cannot create folder " + options.out_dir + ": " + ec.message()});
  install_stop_handlers();
  if (time_budget > 0) set_time_budget(time_budget);
  ReportOutput output(options.json_path);
  const CheckReport report = Checker(options).run();
  if (report.setup_error) return report_error(*report.setup_error);
  print_report(report, output.human_file(), list_input_space);
  for (const std::string& what : report.unwritten) output.lost(what);
  if (!options.junit_path.empty()) write_junit(options.junit_path, check_junit(report), &output);
  return output.finish(engine::report_to_json(report), report.exit_code());
}

}  // namespace

void add_check_command(CLI::App& app, CommandJob* job) {
  auto a = std::make_shared<CheckArguments>();
  CLI::App* check = app.add_subcommand(
      "check",
      "Run the verification campaign on the chosen backends (default: every available one):\n"
      "the SPEC 8 examples, the metadata on generated and on invalid batches, and simulated scenarios\n"
      "stepped through each backend, checked against the model oracle (SPEC 7), the invariants and\n"
      "the reference after every step. With no arguments: the default campaign, about 30 s on 2 cores.\n"
      "Exit 0: every check ran and passed; 1: a disagreement (a shrunk reproducer is written and\n"
      "the replay command printed); 2: bad usage or input (one JSON line on stdout); 3: what ran\n"
      "passed but something did not run, or the run was stopped (SIGINT, SIGTERM, SIGHUP, --time-budget).\n"
      "Scale out: --keep-going collects every finding; --shard K/N runs one part of the campaign and\n"
      "`qsacheck merge` joins the parts; --jobs N uses N threads; --devices 0,1 uses two GPUs.\n"
      "  qsacheck check --backend cuda --devices all --json report.json\n"
      "  qsacheck check --shard 2/4 --json shard-2.json   # on 4 machines, then: qsacheck merge shard-*.json");
  check->add_option("--backend", a->options.backends, "Backend to check (repeatable); default every available one");
  auto* workload =
      check->add_option("--workload", a->options.workload, "Run only this workload model:\n" + traces::workload_help());
  auto* requests_csv =
      check->add_option("--requests-csv", a->options.requests_csv, "Workload from your own CSV of prompt/output lengths")
          ->excludes(workload);
  add_request_log_options(check, &a->requests_log)->excludes(workload)->excludes(requests_csv);
  add_geometry_options(check, &a->geometry);
  check->add_option("--steps", a->steps,
                    "Steps per scenario, 1 ... 2^24 (default 600, 1000 in the default campaign, the log's step\n"
                    "limit with --requests)");
  check->add_option("--scenarios", a->scenarios,
                    "Scenarios of the workload named by --workload, --requests-csv or --requests, 1 ... 2^16\n"
                    "(default 4)");
  check->add_option("--seed", a->seed, "Campaign seed, 0 ... 2^64-1 (every scenario and batch derives from it)")
      ->capture_default_str();
  check->add_option("--batches", a->batches, "Generated metadata batches per backend, 0 ... 2^30")
      ->capture_default_str();
  check->add_option(
      "--time-budget", a->time_budget,
      "Stop after this many seconds and write the partial report (exit 1 if something was found, else 3)");
  check->add_option("--json", a->options.json_path,
                    "Also write the result as JSON to FILE (written atomically at the end); - writes it alone on\n"
                    "stdout and the table on stderr");
  check->add_option("--junit", a->options.junit_path,
                    "Also write the result as JUnit XML to FILE for CI systems: one testcase per check and\n"
                    "backend, a failure holding the finding and the replay command, skipped for what did not run");
  check->add_option("--out", a->options.out_dir, "Folder for reproducers (created with its parents when missing)")
      ->capture_default_str();
  check->add_flag("--input-space", a->list_input_space,
                  "List the input classes the campaign did not reach and the range edges it missed after the\n"
                  "summary's count of them (the JSON report's input_space holds them always)");
  check->add_flag("--keep-going", a->options.keep_going,
                  "Do not stop at the first disagreement: every check and scenario runs, and every finding is\n"
                  "counted; the first --max-findings (in campaign order) are listed with a shrunk reproducer each");
  check
      ->add_option("--max-findings", a->max_findings,
                   "With --keep-going or --shard: findings listed and shrunk, 1 ... 2^20; the rest are counted\n"
                   "and the report says how many were not listed")
      ->capture_default_str();
  check->add_flag("--require-kernel", a->options.require_kernel,
                  "Exit 3 when no kernel can be checked here (only the reference runs: no GPU for cuda, no "
                  "--backend plugin:/worker: given), instead of passing the reference against itself");
  check->add_option("--allow-excluded", a->allow_excluded,
                    "File of input classes (ids of docs/input-space.md, one a line, # comments) that a kernel's "
                    "declared constraints may leave untested; any other class they leave untested is exit 1 "
                    "(docs/production-kernels.md)");
  check->add_option("--shard", a->shard,
                    "Run shard K of N (K/N, N <= 2^16): scenario job i of the campaign runs on shard (i mod N)+1,\n"
                    "the SPEC 8 examples and the batches on shard 1. Implies --keep-going. `qsacheck merge`\n"
                    "joins the N reports into the unsharded one (docs/scale-out.md)");
  check->add_option("--jobs", a->jobs,
                    "Run the scenario jobs (and the shrinking) on N threads, 1 ... 256, each with its own backend\n"
                    "instance; the report does not depend on N (default 1, or one per --devices entry)");
  check->add_option("--devices", a->devices,
                    "Spread the scenario jobs over these CUDA devices (0,1,... or all), one backend instance and\n"
                    "stream per device (--jobs N: N instances, worker w on device w mod count); per-device\n"
                    "figures in the report. GPU backends only (cuda); an error for a CPU backend");
  add_float_tolerance_option(check, &a->options.float_tolerance);
  add_worker_options(check, &a->worker);
  check->callback([=] {
    double time_budget = 0;
    const CheckOptions options = validated(*a, &time_budget);
    *job = [options, time_budget, list = a->list_input_space] { return run_check(options, time_budget, list); };
  });
}

}  // namespace qsa::cli
