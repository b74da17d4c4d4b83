// `qsacheck mutants`: runs the check campaign against every planted bug (docs/planted-bugs.md), with
// no shrinking, and prints the kill table. Exit 0 only when every planted bug is caught; a signal
// (SIGINT, SIGTERM) ends it with the table of what ran (exit 3, or 1 if a bug survived). The CPU
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

#include "backend_choice.hpp"
#include "check_summary.hpp"
#include "checker.hpp"
#include "commands.hpp"
#include "number_options.hpp"
#include "output.hpp"
#include "output_file.hpp"
#include "qsa/backends/planted.hpp"
#include "qsa/backends/plugin_backend.hpp"
#include "qsa/backends/plugin_library.hpp"
#include "qsa/backends/registry.hpp"
#include "qsa/backends/worker_backend.hpp"
#include "qsa/backends/worker_command.hpp"
#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/workloads.hpp"
#include "stop_request.hpp"
#include "worker_options.hpp"

namespace qsa::cli {
namespace {

struct MutantOptions {
  std::string workload;
  int64_t steps = 0;
  int64_t batches = 1000;  // generated metadata batches (1000 and more: the extreme batches too)
  uint64_t seed = 1;
  bool list = false;
  std::string json_path;
  std::string backend;   // plugin:PATH.so: its planted variants instead of ours
  bool isolate = false;  // each variant inside qsacheck-worker-host (--isolate)
};

struct Planted {
  std::string name;  // backend name
  std::string description;
};

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

// The planted bugs to run: ours (those this machine can run), or a plugin's variants
// (plugin:PATH.so#VARIANT). An unusable plugin throws InputError (exit 2).
std::vector<Planted> planted_bugs(const MutantOptions& options, std::string* cuda_skipped) {
  std::vector<Planted> planted;
  if (options.backend.empty()) {
    for (const backends::PlantedBug& m : runnable_planted_bugs(cuda_skipped))
      planted.push_back({m.name, m.description});
    return planted;
  }
  Error error;
  auto backend = open_backend(options.backend, &error);
  if (!backend) throw InputError(error);
  auto* plugin = dynamic_cast<backends::PluginBackend*>(backend.get());
  auto* worker = dynamic_cast<backends::WorkerBackend*>(backend.get());
  const bool is_worker = worker != nullptr && options.backend.rfind(backends::kIsolatedPrefix, 0) != 0;
  if ((plugin == nullptr && !is_worker) || (plugin != nullptr && options.backend.find('#') != std::string::npos))
    throw InputError(Error{
        "backend", -1, "not-a-plugin",
        options.backend + ": --backend takes plugin:PATH.so or worker:COMMAND (their planted variants are run)"});
  if (plugin != nullptr) {
    const QsaPlugin& t = plugin->library()->table();
    for (int32_t i = 0; i < t.num_variants; ++i)
      planted.push_back(
          {(options.isolate ? backends::kIsolatedPrefix : "") + options.backend + "#" + t.variants[i].name,
           t.variants[i].description});
  } else {
    // A worker's variants are its hello's (docs/worker-protocol.md), each the command with
    // `--bug NAME` appended (a variant name needs no quoting: [A-Za-z0-9_.-]+).
    for (const backends::WorkerVariant& v : worker->hello().variants)
      planted.push_back({options.backend + " --bug " + v.name, v.description});
  }
  if (planted.empty())
    throw InputError(Error{"backend", -1, "no-variants", options.backend + " declares no planted variants"});
  return planted;
}

struct MutantArguments {
  MutantOptions options;
  std::string steps, batches, seed = "1";
  WorkerOptions worker;
};

// The first failing row of a report: which check caught the bug and where.
std::pair<std::string, std::string> first_catch(const CheckReport& report) {
  for (const CheckRow& row : report.rows)
    if (row.failures > 0) return {row.check, row.first_failure};
  return {"", ""};
}

int run_mutants(const MutantOptions& options) {
  ReportOutput output(options.json_path);
  std::FILE* out = output.human_file();
  std::string cuda_skipped;
  const std::vector<Planted> planted = planted_bugs(options, &cuda_skipped);
  if (options.list) {
    nlohmann::json list = nlohmann::json::array();
    for (const Planted& m : planted) {
      std::fprintf(out, "%-44s %s\n", m.name.c_str(), m.description.c_str());
      list.push_back({{"name", m.name}, {"description", m.description}});
    }
    if (!cuda_skipped.empty()) std::fprintf(out, "(%s)\n", cuda_skipped.c_str());
    return output.finish({{"schema_version", 1}, {"command", "mutants --list"}, {"planted_bugs", list}}, kExitOk);
  }
  // Bad options are exit 2 before the table starts (stdout then holds only the error line).
  if (!options.workload.empty()) traces::workload_by_name(options.workload);
  std::fprintf(out, "%-44s %-7s %-48s %9s\n", "planted bug", "caught", "first caught by", "seconds");
  nlohmann::json rows = nlohmann::json::array();
  int survivors = 0;
  size_t run = 0;  // planted bugs whose campaign ended (caught, or ran to the end)
  install_stop_handlers();
  for (const Planted& m : planted) {
    if (stop_requested()) break;
    CheckOptions check;
    check.backends = {m.name};
    check.workload = options.workload;
    check.steps = options.steps;
    check.seed = options.seed;
    check.batches = options.batches;
    check.shrink = false;
    check.quiet = true;
    const auto start = std::chrono::steady_clock::now();
    const CheckReport report = Checker(check).run();
    if (report.setup_error) throw InputError(*report.setup_error);  // same options for every bug
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto [by, detail] = first_catch(report);
    const bool caught = report.failed();
    if (!caught && !report.stopped_by.empty()) break;  // stopped before its campaign ended: not a survivor
    ++run;
    survivors += caught ? 0 : 1;
    std::string where = by;
    if (report.first_failure_step >= 0) where += ", step " + std::to_string(report.first_failure_step);
    std::fprintf(out, "%-44s %-7s %-48s %9.2f\n", m.name.c_str(), caught ? "yes" : "NO", caught ? where.c_str() : "-",
                 seconds);
    if (caught) std::fprintf(out, "%-44s         %.110s\n", "", detail.c_str());
    std::fflush(out);
    rows.push_back({{"planted_bug", m.name},
                    {"caught", caught},
                    {"caught_by", by},
                    {"step", report.first_failure_step},
                    {"detail", detail},
                    {"seconds", seconds}});
  }
  nlohmann::json escapes = nlohmann::json::array();
  if (options.backend.empty()) {
    std::fprintf(out, "\nknown escapes (not registered; docs/planted-bugs.md says why no check can see them):\n");
    for (const backends::PlantedBug& m : backends::known_escapes()) {
      std::fprintf(out, "  %-42s %s\n", m.name.c_str(), m.description.c_str());
      escapes.push_back(m.name);
    }
  }
  if (!cuda_skipped.empty()) std::fprintf(out, "\n(%s)\n", cuda_skipped.c_str());
  // Stopped (SIGINT, SIGTERM): what ran is reported; exit 1 if a bug survived, else 3.
  const std::string stopped_by = run < planted.size() ? stop_reason() : "";
  if (!stopped_by.empty())
    std::fprintf(out, "\nnot run: %zu of %zu planted bugs (stopped by %s)\n", planted.size() - run, planted.size(),
                 stopped_by.c_str());
  std::fprintf(out, "\n%s\n",
               survivors > 0         ? "RESULT: FAILED: some planted bugs survived"
               : !stopped_by.empty() ? "RESULT: every planted bug that ran was caught; some did not run (exit 3)"
                                     : "RESULT: every planted bug was caught");
  const int verdict = survivors > 0 ? kExitMismatch : !stopped_by.empty() ? kExitIncomplete : kExitOk;
  return output.finish({{"schema_version", 1},
                        {"command", "mutants"},
                        {"exit_code", verdict},
                        {"stopped_by", stopped_by},
                        {"not_run", static_cast<int64_t>(planted.size() - run)},
                        {"survivors", survivors},
                        {"planted_bugs", rows},
                        {"known_escapes", escapes}},
                       verdict);
}

}  // namespace

void add_mutants_command(CLI::App& app, CommandJob* job) {
  auto a = std::make_shared<MutantArguments>();
  auto* options = &a->options;
  CLI::App* cmd = app.add_subcommand(
      "mutants",
      "Run the check campaign against every planted bug (realistic kernel mistakes, docs/planted-bugs.md)\n"
      "and print the kill table: caught or not, by which check, where, and how fast.\n"
      "Exit 0 only when every planted bug is caught, 1 when one survived, 3 when SIGINT or SIGTERM\n"
      "stopped it first (the table and --json then hold the bugs that ran).");
  cmd->add_flag("--list", options->list, "List the planted bugs and exit");
  cmd->add_option("--backend", options->backend,
                  "plugin:PATH.so: run the plugin's own planted variants (plugin:PATH.so#VARIANT) instead;\n"
                  "worker:COMMAND: the variants its hello offers (COMMAND --bug VARIANT)");
  cmd->add_option("--workload", options->workload, "Use only this workload model (default: the default campaign)");
  cmd->add_option("--steps", a->steps, "Steps per scenario, 1 ... 2^24");
  cmd->add_option("--batches", a->batches,
                  "Generated metadata batches per planted bug, 0 ... 2^30 (default 1000; below 1000 the\n"
                  "extreme batches are left out)");
  cmd->add_option("--seed", a->seed, "Campaign seed, 0 ... 2^64-1")->capture_default_str();
  cmd->add_option("--json", options->json_path,
                  "Also write the kill table as JSON to FILE; - writes it alone on stdout");
  add_worker_options(cmd, &a->worker);
  cmd->callback([=] {
    MutantOptions o = a->options;
    apply_worker_options(a->worker, std::string());  // the timeout
    o.isolate = a->worker.isolate;
    if (!a->steps.empty()) o.steps = parse_integer_option("--steps", a->steps, 1, int64_t{1} << 24);
    if (!a->batches.empty()) o.batches = parse_integer_option("--batches", a->batches, 0, int64_t{1} << 30);
    o.seed = parse_seed_option("--seed", a->seed);
    if (!o.workload.empty()) traces::workload_by_name(o.workload);
    ReportOutput(o.json_path).check();
    *job = [o] { return run_mutants(o); };
  });
}

}  // namespace qsa::cli
