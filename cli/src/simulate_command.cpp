// `qsacheck simulate --workload NAME [--seed S] [--steps N] [geometry flags] FILE`: writes a
// simulated scenario.
// `qsacheck simulate --requests LOG [replay options] FILE`: writes the scenario a request log
// produces (docs/workloads.md "Request logs") and states the log's figures beside what it exercised.

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "commands.hpp"
#include "geometry_options.hpp"
#include "number_options.hpp"
#include "output.hpp"
#include "output_file.hpp"
#include "progress_line.hpp"
#include "qsa/engine/check_report.hpp"
#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/replay_figures.hpp"
#include "qsa/traces/scenario_file.hpp"
#include "qsa/traces/simulator.hpp"
#include "qsa/traces/workloads.hpp"
#include "request_log_options.hpp"
#include "scenario_description.hpp"

namespace qsa::cli {
namespace {

struct SimulateJob {
  std::string workload;  // a workload model's name; empty with a request log
  RequestLogChoice log;  // with --requests
  traces::GeometryChoice geometry;
  uint64_t seed = 1;
  int64_t steps = 0;  // 0 with a log: the log's step limit
  std::string path;
};

int simulate(const SimulateJob& job, ReportOutput output) {
  const bool replay = !job.log.path.empty();
  const traces::Workload w = traces::with_geometry(
      replay ? request_log_workload(job.log) : traces::workload_by_name(job.workload), job.geometry);
  const int64_t steps = job.steps > 0 ? job.steps : w.schedule->step_limit;
  // Each step is written as it is made and only counted after (a 12 000-request log held
  // 8 GB as a whole scenario and its text): memory follows the live requests, not the steps.
  traces::Simulator simulator(w, job.seed);
  const traces::ScenarioConfig config = simulator.config();
  OutputFileWriter file(job.path);
  std::optional<std::string> failed = file.open();
  std::string pending = traces::scenario_header_line(config) + "\n";
  traces::CoverageCounter coverage(config);
  std::optional<traces::ReplaySummarizer> summary;
  if (replay) summary.emplace(w, config);
  traces::ServedPositions served;
  ProgressLine progress(false, std::chrono::seconds(2));
  const auto start = std::chrono::steady_clock::now();
  int64_t written = 0;
  for (; written < steps && !simulator.done() && !failed; ++written) {
    const traces::StepRecord step = simulator.next();
    pending += traces::step_to_json(step, written).dump() + "\n";
    if (pending.size() >= (size_t{1} << 20)) {
      failed = file.write(pending);
      pending.clear();
    }
    coverage.add(step);
    if (!replay) continue;
    summary->add(step);
    served.add(step);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    progress.update("simulating " + job.log.path + ": step " + std::to_string(written + 1) + ", positions " +
                    std::to_string(served.served()) + "/" + std::to_string(w.schedule->positions) + ", " +
                    eta_text(served.served(), w.schedule->positions, seconds));
  }
  progress.clear();
  if (!failed) failed = file.write(pending);
  if (!failed) failed = file.commit();
  if (failed) return report_error(Error{"file", -1, "unwritable", *failed});  // the file is the whole result
  const traces::Coverage c = coverage.coverage();
  const std::string source = replay ? "the request log " + job.log.path : "workload " + job.workload;
  output.human() << "wrote " << job.path << ": " << written << " steps, " << c.requests << " requests of "
                 << source << " (seed " << job.seed << ", " << describe(config) << "); "
                 << c.rows << " rows, " << c.ring_wraps << " ring wraps, " << c.drafts_rejected << " drafts rejected, "
                 << c.preemptions << " preemptions, " << c.prefix_hits << " prefix hits, " << c.padded_steps
                 << " padded steps" << std::endl;
  nlohmann::json report = {{"schema_version", 1}, {"command", "simulate"},   {"file", job.path}, {"workload", replay ? "requests" : job.workload},
                            {"seed", job.seed},         {"steps", written},
                            {"requests", c.requests},   {"rows", c.rows},
                            {"coverage", engine::coverage_to_json(c)}};
  if (!replay) return output.finish(report, kExitOk);
  traces::ReplaySummary r = summary->finish(simulator.evictions());
  r.reuse = traces::log_implied_reuse(traces::read_request_log(job.log.path, job.log.format, job.log.hash_block_tokens),
                                      job.log.replay, config.block_size);
  output.human() << traces::replay_summary_text(w, r) << std::flush;
  report["request_log"] = traces::replay_summary_json(w, r);
  if (r.finished < r.window_requests) {
    output.human() << "NOT COMPLETE: " << r.window_requests - r.finished << " requests of the window did not finish in "
                   << written << " steps (raise --steps, the --token-budget or the --length-scale)" << std::endl;
    return output.finish(report, kExitIncomplete);
  }
  return output.finish(report, kExitOk);
}

}  // namespace

void add_simulate_command(CLI::App& app, CommandJob* job) {
  CLI::App* cmd = app.add_subcommand(
      "simulate",
      "Write the scenario a workload model produces (traces/FORMAT.md, no digests), e.g. to read it\n"
      "or to record a trace: qsacheck simulate --workload prefix-sharing --steps 200 FILE, then\n"
      "qsacheck record-expected FILE. The same workload, seed and steps give the same file.\n"
      "At the model's geometry: qsacheck simulate --preset production --steps 200 FILE.\n"
      "With --requests LOG: the scenario a request log produces, every request of the window run to\n"
      "its end (exit 3 if one did not finish within --steps), the log's figures beside what the\n"
      "scenario exercised: qsacheck simulate --requests trace.jsonl --window 0:500 FILE");
  auto workload = std::make_shared<std::string>("default");
  auto seed = std::make_shared<std::string>("1");
  auto steps = std::make_shared<std::string>("200");
  auto file = std::make_shared<std::string>();
  auto json_path = std::make_shared<std::string>();
  auto log = std::make_shared<RequestLogArguments>();
  auto* workload_option =
      cmd->add_option("--workload", *workload, "Workload model:\n" + traces::workload_help())->capture_default_str();
  cmd->add_option("--seed", *seed, "Scenario seed, 0 ... 2^64-1")->capture_default_str();
  auto* steps_option =
      cmd->add_option("--steps", *steps,
                      "Steps, 1 ... 2^20 (fewer when a bounded workload ends first); with --requests the default\n"
                      "is the log's step limit, twice the positions its requests commit")
          ->capture_default_str();
  add_request_log_options(cmd, log.get())->excludes(workload_option);
  auto geometry = std::make_shared<GeometryOptions>();
  add_geometry_options(cmd, geometry.get());
  cmd->add_option("--json", *json_path, "Also write a summary as JSON to FILE; - writes it alone on stdout");
  cmd->add_option("file", *file, "Scenario file to write")->required();
  cmd->callback([=] {
    SimulateJob j;
    j.seed = parse_seed_option("--seed", *seed);
    j.path = *file;
    j.geometry = parse_geometry_options(*geometry);
    if (log->path.empty()) {
      j.workload = *workload;
      j.steps = parse_integer_option("--steps", *steps, 1, int64_t{1} << 20);
      traces::with_geometry(traces::workload_by_name(*workload), j.geometry);
    } else {
      j.log = parse_request_log_arguments(*log);
      j.steps = steps_option->count() > 0 ? parse_integer_option("--steps", *steps, 1, int64_t{1} << 20) : 0;
    }
    check_output_file(*file, "file");
    ReportOutput output(*json_path);
    output.check();
    check_distinct_paths({{log->path, "--requests"}}, {{*file, "file"}, {*json_path, "--json"}});
    *job = [=] { return simulate(j, output); };
  });
}

}  // namespace qsa::cli
