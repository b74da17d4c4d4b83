#include "checker.hpp"

#include <cstdio>
#include <mutex>

#include "backend_choice.hpp"
#include "check_summary.hpp"
#include "float_tolerance_option.hpp"
#include "output_file.hpp"
#include "progress_line.hpp"
#include "qsa/backends/cuda_kernel_path.hpp"
#include "qsa/backends/plugin_backend.hpp"
#include "qsa/backends/plugin_library.hpp"
#include "qsa/backends/registry.hpp"
#include "qsa/backends/worker_backend.hpp"
#include "qsa/engine/check_log_figures.hpp"
#include "qsa/input_error.hpp"
#include "qsa/traces/limits.hpp"
#include "qsa/traces/replay_figures.hpp"
#include "stop_request.hpp"
#include "version.hpp"

namespace qsa::cli {
namespace {

// What the campaign asks of backends beyond the Backend interface, answered by backends/.
engine::CampaignHooks backend_hooks(const CheckOptions& options) {
  engine::CampaignHooks hooks;
  hooks.make_backend = options.make_backend;
  hooks.kernel_paths.path = [](const traces::ScenarioConfig& config) { return backends::cuda_step_kernel_path(config); };
  hooks.kernel_paths.grids = [](const traces::ScenarioConfig& config) {
    return [choice = backends::cuda_grid_choice(config)](const traces::StepRecord& step) {
      return backends::cuda_step_grid(choice, step);
    };
  };
  hooks.kernel_paths.all_paths = backends::cuda_step_kernel_paths();
  hooks.kernel_paths.all_grids = backends::cuda_step_grids();
  hooks.declarations = [](const Backend& backend) {
    if (const auto* plugin = dynamic_cast<const backends::PluginBackend*>(&backend); plugin && plugin->library())
      return backends::describe_constraints(plugin->library()->declaration());
    if (const auto* worker = dynamic_cast<const backends::WorkerBackend*>(&backend))
      return backends::describe_constraints(worker->hello().capabilities);
    return std::vector<std::pair<std::string, std::string>>{};
  };
  hooks.kernel_seconds = [](const Backend& backend) { return backends::kernel_seconds(backend); };
  // Each job has its own worker process, or its own plugin instance when the plugin declares
  // concurrent instances (otherwise the jobs share one and take turns).
  hooks.concurrent_instances = [](const Backend& backend) {
    const auto* plugin = dynamic_cast<const backends::PluginBackend*>(&backend);
    return plugin == nullptr ||
           (plugin->library() != nullptr &&
            (plugin->library()->capabilities().features & QSA_PLUGIN_FEATURE_CONCURRENT_INSTANCES) != 0);
  };
  hooks.worker_timeout = [] { return backends::worker_timeout(); };
  hooks.set_worker_timeout = [](std::chrono::milliseconds timeout) { backends::set_worker_timeout(timeout); };
  return hooks;
}

// Progress on stderr (one line rewritten on a terminal), stop requests from signals and the time
// budget, reproducers written whole or not at all.
engine::CampaignObserver printing_observer(ProgressLine& progress, bool quiet) {
  engine::CampaignObserver observer;
  observer.new_phase = [&progress, quiet] { progress = ProgressLine(quiet); };
  observer.stop_requested = [] { return stop_requested(); };
  observer.stop_reason = [] { return stop_reason(); };
  observer.progress = [&progress](const std::string& text) { progress.update(text); };
  observer.line = [&progress](const std::string& text) { progress.finish(text); };
  observer.write_file = [](const std::string& path, const std::string& text) { return write_output_file(path, text); };
  return observer;
}

}  // namespace

Checker::Checker(CheckOptions options) : options_(std::move(options)) {
  if (!options_.make_backend)
    options_.make_backend = [](const std::string& name, int device) { return create_backend(name, device); };
}

CheckReport Checker::run() {
  CheckReport report;
  report.seed = options_.seed;
  report.run = engine::run_facts_now();
  engine::CampaignOptions campaign;
  Error error;
  if (!parse_float_tolerance_flag(options_.float_tolerance, &campaign.float_tolerance, &error)) {
    report.setup_error = error;
    return report;
  }
  report.float_tolerance = campaign.float_tolerance;
  report.backends = choose_backends(options_.backends, &report.unavailable, &error);
  if (report.backends.empty() && !options_.backends.empty() && !report.unavailable.empty() &&
      error.rule == "unavailable") {
    for (const std::string& why : report.unavailable) report.not_run.push_back("every check: " + why);
    return report;  // exit 3: nothing could run on this machine
  }
  if (report.backends.empty()) {
    report.setup_error = error.field.empty() ? Error{"backend", -1, "none", "no backend can run here"} : error;
    return report;
  }
  if (engine::checks_no_kernel(report)) {
    // A pass of the reference alone says nothing about a kernel: the first line says so, the last
    // (the verdict) too, and --require-kernel makes it "not run" (docs/decisions.md).
    if (!options_.quiet) std::fprintf(stderr, "qsacheck check: %s\n", engine::no_kernel_note(report).c_str());
    if (options_.require_kernel)
      campaign.not_run.push_back("a kernel (--require-kernel): " + engine::no_kernel_note(report));
  }
  try {
    campaign.jobs = this->campaign();
    // Every scenario's caches are sized now, before anything is allocated or run.
    for (const CampaignJob& job : campaign.jobs) {
      traces::resolve_workload(job.workload, job.seed);
      if (job.workload.schedule && campaign.request_log.is_null())  // the replayed log's figures, for the report
        campaign.request_log = traces::request_log_figures_json(*job.workload.schedule);
    }
    if (!options_.requests_csv.empty()) campaign.requests_csv_text = traces::read_input_text(options_.requests_csv);
    if (!options_.requests_log.path.empty())
      campaign.requests_log_text =
          options_.requests_log.settings_text() + "\n" + traces::read_input_text(options_.requests_log.path);
  } catch (const InputError& e) {
    report.setup_error = e.error();
    return report;
  }
  if (!options_.requests_log.path.empty()) {
    const RequestLogChoice log = options_.requests_log;
    campaign.log_reuse = [log](int64_t block_size) {
      return traces::log_implied_reuse(traces::read_request_log(log.path, log.format, log.hash_block_tokens), log.replay,
                                       block_size);
    };
  }
  campaign.backends = report.backends;
  campaign.unavailable = report.unavailable;
  campaign.allowed_exclusions = options_.allowed_exclusions;
  campaign.seed = options_.seed;
  campaign.batches = options_.batches;
  campaign.geometry = options_.geometry.to_string();
  campaign.tool_version = tool_version();
  campaign.commit = git_commit();
  campaign.spec_version = spec_version();
  campaign.out_dir = options_.out_dir;
  campaign.shrink = options_.shrink;
  campaign.keep_going = options_.keep_going;
  campaign.max_findings = options_.max_findings;
  campaign.shard = options_.shard;
  campaign.threads = options_.jobs;
  campaign.devices = options_.devices;
  ProgressLine progress(options_.quiet);
  return engine::run_campaign(campaign, backend_hooks(options_), printing_observer(progress, options_.quiet));
}

std::vector<CampaignJob> Checker::campaign() const {
  std::vector<CampaignJob> jobs = unshaped_campaign();
  for (CampaignJob& job : jobs) job.workload = traces::with_geometry(job.workload, options_.geometry);
  return jobs;
}

std::vector<CampaignJob> Checker::unshaped_campaign() const {
  if (!options_.requests_log.path.empty()) {
    const traces::Workload log = request_log_workload(options_.requests_log);
    return engine::workload_campaign(log, options_.seed, options_.scenarios, steps_or(log.schedule->step_limit));
  }
  if (!options_.requests_csv.empty())
    return engine::workload_campaign(traces::workload_from_requests_csv(options_.requests_csv), options_.seed,
                                     options_.scenarios, steps_or(600));
  if (!options_.workload.empty())
    return engine::workload_campaign(traces::workload_by_name(options_.workload), options_.seed, options_.scenarios,
                                     steps_or(600));
  std::vector<CampaignJob> jobs = engine::default_campaign(options_.seed);
  if (options_.steps > 0)
    for (CampaignJob& job : jobs) job.steps = options_.steps;
  return jobs;
}

int64_t Checker::steps_or(int64_t fallback) const { return options_.steps > 0 ? options_.steps : fallback; }

}  // namespace qsa::cli
