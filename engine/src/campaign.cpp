#include "qsa/engine/campaign.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <chrono>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "qsa/engine/campaign_inputs.hpp"
#include "qsa/engine/check_engine.hpp"
#include "qsa/engine/job_pool.hpp"
#include "qsa/engine/progress_text.hpp"
#include "qsa/engine/replay_command.hpp"
#include "qsa/engine/shrinker.hpp"
#include "qsa/spec_examples.hpp"
#include "qsa/traces/batch_generator.hpp"
#include "qsa/traces/extreme_batches.hpp"
#include "qsa/traces/json_codec.hpp"
#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/large_buffer_reuse.hpp"
#include "qsa/traces/replay_figures.hpp"
#include "qsa/traces/scenario_file.hpp"

namespace qsa::engine {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

const char* const kExamplesCheck = "SPEC 8 worked examples and ring survival";
const char* const kGeneratedCheck = "metadata on generated batches (SPEC 7.4, reference)";
const char* const kInvalidCheck = "validation errors on invalid batches (SPEC 1.4, reference)";
const char* const kExtremeCheck = "metadata on extreme batches (SPEC 1.3 limits, reference)";

// The line a finished job leaves on stderr.
std::string job_line(const std::string& backend, const JobResult& r) {
  const std::string label = backend + " " + r.workload + " seed " + std::to_string(r.seed);
  if (r.failure) return "FAIL " + label + ": " + engine::to_string(*r.failure);
  if (r.stopped) return label + ": stopped after " + std::to_string(r.steps_run) + " passing steps";
  return label + ": " + std::to_string(r.steps_run) + " steps passed (" +
         std::to_string(static_cast<int64_t>(r.seconds * 1000)) + " ms)";
}

// A backend name in a file name: a worker's command may hold blanks, quotes and long paths.
std::string file_safe(std::string name) {
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '-' && ch != '_') ch = '_';
  return name.size() > 80 ? name.substr(0, 80) : name;
}

// Shrinking a worker fault (a crash, a hang, a broken frame: a failure of its own kind): each
// candidate runs in a fresh worker with at most this timeout per call, and the shrink keeps what it
// has after kFaultShrinkSeconds, since a worker that hangs costs every candidate its timeout.
constexpr std::chrono::milliseconds kFaultCandidateTimeout{10000};
constexpr double kFaultShrinkSeconds = 60;

// Lowers the worker timeout for a scope (CampaignHooks: the timeout is the backends' setting).
class WorkerTimeoutFor {
 public:
  WorkerTimeoutFor(const CampaignHooks& hooks, std::chrono::milliseconds timeout) : hooks_(hooks) {
    if (!hooks_.worker_timeout || !hooks_.set_worker_timeout) return;
    saved_ = hooks_.worker_timeout();
    hooks_.set_worker_timeout(std::min(*saved_, timeout));
  }
  ~WorkerTimeoutFor() {
    if (saved_) hooks_.set_worker_timeout(*saved_);
  }
  WorkerTimeoutFor(const WorkerTimeoutFor&) = delete;
  WorkerTimeoutFor& operator=(const WorkerTimeoutFor&) = delete;

 private:
  const CampaignHooks& hooks_;
  std::optional<std::chrono::milliseconds> saved_;
};

}  // namespace

Campaign::Campaign(CampaignOptions options, CampaignHooks hooks, CampaignObserver observer)
    : options_(std::move(options)),
      hooks_(std::move(hooks)),
      observer_(std::move(observer)),
      tolerance_(options_.float_tolerance) {
  report_.seed = options_.seed;
  if (options_.shard.count > 1) options_.keep_going = true;  // a shard never stops at a finding
  if (!observer_.write_file)  // a reproducer then lands in the report's unwritten outputs, saying why
    observer_.write_file = [](const std::string&, const std::string&) -> std::optional<std::string> {
      return std::string("the campaign's caller gave no file writer");
    };
}

CheckReport run_campaign(const CampaignOptions& options, const CampaignHooks& hooks, const CampaignObserver& observer) {
  return Campaign(options, hooks, observer).run();
}

bool Campaign::stop_requested() const { return observer_.stop_requested && observer_.stop_requested(); }

void Campaign::progress(const std::string& text) const {
  if (observer_.progress) observer_.progress(text);
}

void Campaign::line(const std::string& text) const {
  if (observer_.line) observer_.line(text);
}

void Campaign::new_phase() const {
  if (observer_.new_phase) observer_.new_phase();
}

CheckReport Campaign::run() {
  const auto start = Clock::now();
  report_.run = run_facts_now();
  report_.run.threads = std::max<int64_t>(1, options_.threads);
  report_.float_tolerance = tolerance_;
  report_.backends = options_.backends;
  report_.unavailable = options_.unavailable;
  report_.not_run = options_.not_run;
  report_.all_kernel_paths = hooks_.kernel_paths.all_paths;
  report_.all_grids = hooks_.kernel_paths.all_grids;
  report_.request_log = options_.request_log;
  const std::vector<CampaignJob>& jobs = options_.jobs;
  CampaignSettings settings;
  settings.requests_csv_text = options_.requests_csv_text;
  settings.requests_log_text = options_.requests_log_text;
  settings.backends = report_.backends;
  settings.jobs = jobs;
  settings.seed = options_.seed;
  settings.batches = options_.batches;
  settings.float_tolerance = tolerance_.to_string();
  settings.max_findings = options_.keep_going ? options_.max_findings : 1;
  settings.geometry = options_.geometry;
  report_.campaign =
      CampaignIdentity{options_.tool_version,   options_.commit,       options_.spec_version,
                       settings_hash(settings), options_.shard.index,  options_.shard.count,
                       options_.keep_going,     settings.max_findings, static_cast<int64_t>(jobs.size())};
  for (const std::string& name : report_.backends) {  // the rows of a run to the end, in their order
    for (const char* check : {kExamplesCheck, kGeneratedCheck, kInvalidCheck}) report_.planned.emplace_back(check, name);
    std::set<std::string> workloads;
    for (const CampaignJob& job : jobs)
      if (workloads.insert(job.workload.name).second) report_.planned.emplace_back("scenarios: " + job.workload.name, name);
    if (campaign_extreme_batches(options_.batches) > 0) report_.planned.emplace_back(kExtremeCheck, name);
  }
  for (size_t b = 0; b < report_.backends.size(); ++b) {
    const std::string& name = report_.backends[b];
    row_of_workload_.clear();
    declined_.clear();
    step_update_missing_ = false;
    const bool go_on = options_.keep_going;
    if (options_.shard.index == 1) {  // the examples and batches are shard 1's
      auto backend = make_backend(name, device_of_worker(0));
      note_declarations(name, *backend);
      run_spec_examples(b, name, *backend);
      if (go_on || !report_.failed()) run_generated_batches(b, name, *backend);
      if (go_on || !report_.failed()) run_invalid_batches(b, name, *backend);
    } else {
      add_batch_rows_of_shard_one(name);
    }
    if ((go_on || !report_.failed()) && report_.stopped_by.empty()) run_scenarios(b, name, jobs);
    // The extreme batches last: a bug the scenarios catch first (qsacheck mutants) never pays for them.
    if (campaign_extreme_batches(options_.batches) > 0) {
      if (options_.shard.index != 1) {
        add_extreme_row_of_shard_one(name);  // after the scenarios' rows, where shard 1 puts it
      } else if ((go_on || !report_.failed()) && report_.stopped_by.empty()) {
        auto backend = make_backend(name, device_of_worker(0));
        run_extreme_batches(b, name, *backend);
      }
    }
    if (!go_on && report_.failed()) break;
    if (!report_.stopped_by.empty()) {
      for (size_t rest = b + 1; rest < report_.backends.size(); ++rest)
        report_.not_run.push_back("every check of " + report_.backends[rest] + " (stopped by " + report_.stopped_by +
                                  ")");
      break;
    }
  }
  if (options_.keep_going) {  // one order for every shard and thread count (a merge sorts the same way)
    std::sort(report_.not_run.begin(), report_.not_run.end());
    report_.not_run.erase(std::unique(report_.not_run.begin(), report_.not_run.end()), report_.not_run.end());
  }
  judge_exclusions();
  write_reproducers();
  std::sort(report_.run.devices.begin(), report_.run.devices.end(),
            [](const RunFacts::Device& x, const RunFacts::Device& y) { return x.device < y.device; });
  report_.run.wall_seconds = since(start);
  return report_;
}

int Campaign::device_of_worker(int worker) const { return engine::device_of_worker(options_.devices, worker); }

std::unique_ptr<Backend> Campaign::make_backend(const std::string& name, int device) const {
  auto backend = hooks_.make_backend(name, device);
  if (!backend)
    throw std::runtime_error("backend " + name + " could not be created on device " + std::to_string(device));
  return backend;
}

bool Campaign::fail(CheckRow& row, CheckFinding finding) {
  if (row.failures++ == 0) {
    row.first_failure = finding.what;
    row.first_failure_order = finding.order;
  }
  ++report_.findings_total;
  const size_t cap = options_.keep_going ? static_cast<size_t>(options_.max_findings) : SIZE_MAX;
  if (report_.findings.size() >= cap) return false;
  finding.backend = row.backend;
  finding.check = row.check;
  report_.findings.push_back(std::move(finding));
  return true;
}

void Campaign::add_pending(std::optional<MetadataInput> batch, std::string what, std::optional<JobResult> job) {
  if (!options_.shrink) return;
  pending_.push_back(Pending{report_.findings.size() - 1, std::move(batch), std::move(what), std::move(job)});
}

void Campaign::add_batch_rows_of_shard_one(const std::string& name) {
  if (!options_.keep_going) return;
  for (const char* check : {kExamplesCheck, kGeneratedCheck, kInvalidCheck}) report_.add(check, name);
}

void Campaign::add_extreme_row_of_shard_one(const std::string& name) {
  if (options_.keep_going) report_.add(kExtremeCheck, name);
}

void Campaign::run_spec_examples(size_t b, const std::string& name, Backend& backend) {
  const auto start = Clock::now();
  const size_t row_index = report_.rows.size();
  report_.add(kExamplesCheck, name);
  bool failed = false, stopped = false;
  // A failing example is a batch like any other: its JSON is the reproducer that `qsacheck replay`
  // judges against the reference (the examples' values are the reference's, SPEC 8), so a user
  // replays it as they replay a generated batch.
  auto example_failure = [&](int64_t index, const std::string& what, const MetadataInput& input,
                             const std::string& file_what) {
    CheckFinding f;
    f.order = campaign_order(b, CampaignPhase::kExamples, index);
    f.what = what;
    f.device = device_of_worker(0);
    if (fail(report_.rows[row_index], std::move(f))) add_pending(input, file_what, std::nullopt);
    failed = true;
  };
  // Like every check, the first failure ends it unless --keep-going (a worker that hangs would
  // otherwise cost every later example a restart and a timeout).
  auto go_on = [&] {
    stopped = stopped || stop_requested();
    return (options_.keep_going || !failed) && !stopped;
  };
  int64_t index = 0;
  for (const MetadataExample& example : spec_metadata_examples()) {
    if (!go_on()) break;
    if (auto why = backend.excludes(example.input)) {
      engine::InputSpaceCoverage classes;
      classes.add_batch(example.input);
      note_excluded(name, "spec_examples", *why, classes);
      ++index;
      continue;
    }
    const engine::MetadataRun run = engine::run_metadata(backend, example.input);
    if (is_declined(run.status, run.error)) {
      not_run(name, "SPEC 8 example " + example.name, run.error);
      ++index;
      continue;
    }
    ++report_.rows[row_index].cases;
    const std::string file_what = "spec8-example" + std::to_string(index);
    if (auto finding = engine::judge_metadata(example.input, run, engine::MetadataChecks{true, nullptr}))
      example_failure(index, example.name + ": " + finding->to_string(), example.input, file_what);
    else if (auto diff = compare_with_example(example, run.output))
      example_failure(index, example.name + ": " + *diff, example.input, file_what);
    ++index;
  }
  Error declined;
  MetadataInput survival_input;  // the case's batch, for its reproducer
  auto build = [&](const MetadataInput& in, MetadataOutput* out, Error* e) {
    survival_input = in;
    const Status status = backend.build_metadata(in, out, e);
    if (is_declined(status, *e)) declined = *e;
    return status;
  };
  for (int64_t s = 0; s < 64 && declined.rule.empty() && go_on(); ++s, ++report_.rows[row_index].cases)
    if (auto failure = check_ring_survival(s, build); failure && declined.rule.empty())
      example_failure(index + s, *failure, survival_input, "spec8-ring-survival" + std::to_string(s));
  if (!declined.rule.empty()) not_run(name, "ring survival", declined);
  if (stopped) note_stop("the SPEC 8 examples and ring survival cases after case " +
                         std::to_string(report_.rows[row_index].cases) + " on " + name);
  report_.rows[row_index].seconds = since(start);
}

void Campaign::run_generated_batches(size_t b, const std::string& name, Backend& backend) {
  const auto start = Clock::now();
  const size_t row_index = report_.rows.size();
  report_.add(kGeneratedCheck, name);
  new_phase();
  Declines declines;
  for (int64_t i = 0; i < options_.batches; ++i) {
    if (stop_requested()) {
      note_stop("metadata batches " + std::to_string(i) + " ... " + std::to_string(options_.batches - 1) + " on " +
                name + " and its scenarios");
      break;
    }
    const traces::GeneratedBatch generated = admitted_batch(name, backend, i);
    if (!run_valid_batch(backend, row_index, campaign_order(b, CampaignPhase::kGeneratedBatches, i), generated.input,
                         "batch " + std::to_string(i) + " (" + traces::to_string(generated.shape) + ")",
                         "batch" + std::to_string(i), &declines))
      break;
    progress(name + ": metadata batch " + std::to_string(i + 1) + "/" + std::to_string(options_.batches));
  }
  report_.rows[row_index].seconds = since(start);
  report_declines(declines, "generated metadata batches", name);
}

void Campaign::report_declines(const Declines& declines, const std::string& what, const std::string& name) {
  if (declines.count > 0) declared_limits(name).declined += declines.count;
  if (declines.count > 0)
    report_.not_run.push_back(std::to_string(declines.count) + " " + what + " on " + name +
                              ": outside the backend's declared capabilities (first: " + declines.first_reason + ")");
}

bool Campaign::run_valid_batch(Backend& backend, size_t row_index, int64_t order, const MetadataInput& input,
                              const std::string& what, const std::string& file_what, Declines* declines) {
  CheckRow& row = report_.rows[row_index];
  ++row.cases;
  report_.input_space.add_batch(input);
  Error declined;
  auto failure = check_batch(backend, input, &declined);
  if (!declined.rule.empty()) {
    --row.cases;
    if (declines->count++ == 0) declines->first_reason = declined.message;
    return true;
  }
  if (!failure) return true;
  CheckFinding f;
  f.order = order;
  f.what = what + ": " + *failure;
  f.device = device_of_worker(0);
  if (fail(row, std::move(f))) add_pending(input, file_what, std::nullopt);
  return options_.keep_going;
}

std::optional<std::string> Campaign::check_batch(Backend& backend, const MetadataInput& input, Error* declined) {
  const engine::MetadataRun run = engine::run_metadata(backend, input);
  if (is_declined(run.status, run.error)) {
    *declined = run.error;
    return std::nullopt;
  }
  const engine::MetadataRun expected = engine::reference_metadata(input);
  if (auto finding = engine::judge_metadata(input, run, engine::MetadataChecks{true, &expected}))
    return finding->to_string();
  return std::nullopt;
}

void Campaign::write_batch_reproducer(CheckFinding& finding, const std::string& what, const MetadataInput& input) {
  const std::string file = options_.out_dir + "/qsacheck-failure-" + file_safe(finding.backend) + "-" + what + ".json";
  const std::string text =
      traces::metadata_input_to_json(input).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (auto why = observer_.write_file(file, text)) {
    report_.unwritten.push_back("the reproducer " + file + " (" + *why + ")");
    return;
  }
  finding.reproducer = file;
  finding.replay_command = engine::replay_command(finding.backend, file);
}

void Campaign::run_invalid_batches(size_t b, const std::string& name, Backend& backend) {
  const auto start = Clock::now();
  const size_t row_index = report_.rows.size();
  report_.add(kInvalidCheck, name);
  const int64_t count = campaign_invalid_batches(options_.batches);
  for (int64_t i = 0; i < count; ++i) {
    ++report_.rows[row_index].cases;
    const traces::GeneratedBatch generated = campaign_invalid_batch(options_.seed, i);
    report_.input_space.add_batch(generated.input);
    Error declined;  // stays empty: validation comes before any capability (docs/decisions.md)
    if (auto failure = check_batch(backend, generated.input, &declined)) {
      CheckFinding f;
      f.order = campaign_order(b, CampaignPhase::kInvalidBatches, i);
      f.what = "invalid batch " + std::to_string(i) + ": " + *failure;
      f.device = device_of_worker(0);
      if (fail(report_.rows[row_index], std::move(f)))
        add_pending(generated.input, "invalid-batch" + std::to_string(i), std::nullopt);
      if (!options_.keep_going) break;
    }
  }
  report_.rows[row_index].seconds = since(start);
}

void Campaign::run_extreme_batches(size_t b, const std::string& name, Backend& backend) {
  const auto start = Clock::now();
  const size_t row_index = report_.rows.size();
  report_.add(kExtremeCheck, name);
  const traces::LargeBufferReuse reuse;  // ~1.3 GiB a batch, allocated and freed again
  Declines declines;
  for (int64_t k = 0; k < campaign_extreme_batches(options_.batches); ++k) {
    if (stop_requested()) {
      note_stop("extreme batches " + std::to_string(k) + " ... on " + name);
      break;
    }
    const traces::ExtremeBatch extreme = traces::extreme_metadata_batch(k);
    if (auto why = backend.excludes(extreme.input)) {  // a fixed input: nothing to draw again
      engine::InputSpaceCoverage classes;
      classes.add_batch(extreme.input);
      note_excluded(name, "extreme_batches", *why, classes);
      continue;
    }
    // A backend may decline a batch beyond its declared capabilities (a plugin's request range).
    if (!run_valid_batch(backend, row_index, campaign_order(b, CampaignPhase::kExtremeBatches, k), extreme.input,
                         "extreme batch " + std::to_string(k) + " (" + extreme.name + ")",
                         "extreme-batch" + std::to_string(k), &declines))
      break;
  }
  report_.rows[row_index].seconds = since(start);
  report_declines(declines, "extreme metadata batches", name);
}

void Campaign::run_scenarios(size_t b, const std::string& name, const std::vector<CampaignJob>& jobs) {
  new_phase();
  std::mutex progress_mutex;  // workers report progress from their threads
  const auto scenarios_start = Clock::now();
  int64_t jobs_done = 0;  // the overall progress of every line (under progress_mutex)
  if (options_.keep_going)    // every workload's row, in campaign order, whichever jobs this shard runs
    for (const CampaignJob& job : jobs)
      if (row_of_workload_.emplace(job.workload.name, report_.rows.size()).second)
        report_.add("scenarios: " + job.workload.name, name);
  std::vector<int64_t> mine;  // this shard's jobs, as indices into the unsharded campaign
  for (int64_t i = 0; i < static_cast<int64_t>(jobs.size()); ++i)
    if (options_.shard.owns(i)) mine.push_back(i);
  const int workers = static_cast<int>(std::max<int64_t>(1, options_.threads));
  std::vector<std::unique_ptr<Backend>> backends(static_cast<size_t>(workers));  // one per worker, made there
  std::vector<std::optional<JobResult>> results(mine.size());
  std::vector<engine::StepFloatStatistics> statistics(mine.size(), engine::StepFloatStatistics(tolerance_.ulps));
  std::vector<int64_t> steps_of(mine.size(), 0);  // steps checked per job, for the rate (under progress_mutex)
  int64_t steps_done = 0;
  const int64_t reported = run_pool(
      static_cast<int64_t>(mine.size()), workers, !options_.keep_going,
      [&](int64_t k, int worker, const std::function<bool()>& cancelled) {
        if (stop_requested()) return false;
        auto& backend = backends[static_cast<size_t>(worker)];
        if (!backend) {
          backend = make_backend(name, device_of_worker(worker));
          note_declarations(name, *backend);
        }
        engine::RunOptions run_options;
        run_options.float_tolerance = tolerance_;
        if (!tolerance_.exact()) run_options.float_statistics = &statistics[static_cast<size_t>(k)];
        const CampaignJob& job = jobs[static_cast<size_t>(mine[static_cast<size_t>(k)])];
        JobResult result = run_job(
            job, *backend,
            [&](const CampaignJob& j, int64_t step, const traces::Coverage& c, int64_t served, double seconds) {
              std::lock_guard<std::mutex> lock(progress_mutex);
              steps_done += step - steps_of[static_cast<size_t>(k)];
              steps_of[static_cast<size_t>(k)] = step;
              std::ostringstream os;
              os << overall_progress(jobs_done, static_cast<int64_t>(mine.size()), since(scenarios_start), steps_done)
                 << " "
                 << name << " " << j.workload.name << " seed " << j.seed << ": step " << step;
              // A log's replay ends long before its step limit: count down the positions it serves.
              if (j.workload.schedule)
                os << ", positions " << served << "/" << j.workload.schedule->positions << " ("
                   << eta_text(served, j.workload.schedule->positions, seconds) << ")";
              else
                os << "/" << j.steps;
              os << ", " << c.rows << " rows, " << c.requests << " requests, " << static_cast<int64_t>(seconds) << " s";
              progress(os.str());
            },
            run_options, [&] { return stop_requested() || cancelled(); }, hooks_.kernel_paths);
        result.device = device_of_worker(worker);
        const bool failed = result.failure.has_value();
        count_instance_geometry(jobs, mine[static_cast<size_t>(k)], &result.input_space);
        if (!failed) result.scenario = {};  // only a failing one is shrunk
        if (!cancelled()) {                 // the line each job leaves, as it ends
          std::lock_guard<std::mutex> lock(progress_mutex);
          ++jobs_done;
          steps_done += result.steps_run - steps_of[static_cast<size_t>(k)];
          steps_of[static_cast<size_t>(k)] = result.steps_run;
          line(
              overall_progress(jobs_done, static_cast<int64_t>(mine.size()), since(scenarios_start), steps_done) + " " +
              job_line(name, result));
        }
        results[static_cast<size_t>(k)] = std::move(result);
        return failed;
      });
  double inside = 0;  // the kernel's own seconds, every job's backend together
  bool outside = false;
  for (const auto& backend : backends)
    if (backend)
      if (const std::optional<double> s = hooks_.kernel_seconds ? hooks_.kernel_seconds(*backend) : std::nullopt) {
        inside += *s;
        outside = true;
      }
  if (outside && steps_done > 0) {
    const double wall = since(scenarios_start);
    char line[256];
    std::snprintf(line, sizeof line,
                  "time: %lld steps of %s in %.2f s (%.0f steps/s), %.2f s of it inside the kernel's calls, "
                  "qsacheck's share %.3f ms a step%s",
                  static_cast<long long>(steps_done), name.c_str(), wall, static_cast<double>(steps_done) / wall,
                  inside, (wall * static_cast<double>(workers) - inside) / static_cast<double>(steps_done) * 1000.0,
                  workers > 1 ? " (per job)" : "");
    report_.kernel_time.push_back(line);
    // Each job has its own worker process, or its own plugin instance when the plugin declares
    // concurrent instances (otherwise the jobs share one and take turns).
    const bool parallel = !hooks_.concurrent_instances || hooks_.concurrent_instances(*backends.front());
    const unsigned cores = std::thread::hardware_concurrency();
    if (workers == 1 && parallel && cores > 1 && mine.size() > 1)
      report_.kernel_time.push_back("  --jobs " + std::to_string(std::min<size_t>(cores, mine.size())) + " would run " +
                                    std::to_string(std::min<size_t>(cores, mine.size())) +
                                    " scenarios at once, each with its own instance of the kernel");
  }
  if (!tolerance_.exact()) {
    report_.float_statistics.emplace_back(name, engine::StepFloatStatistics(tolerance_.ulps));
    report_.float_worst_jobs.emplace_back(-1, -1);
  }
  int64_t not_started = 0;
  for (int64_t k = 0; k < reported; ++k) {
    std::optional<JobResult>& result = results[static_cast<size_t>(k)];
    if (!result) {
      ++not_started;
      continue;
    }
    const int64_t index = mine[static_cast<size_t>(k)];
    if (!tolerance_.exact()) {
      auto& into = report_.float_statistics.back().second;
      const auto& from = statistics[static_cast<size_t>(k)];
      if (engine::absorb(into.compressed, from.compressed)) report_.float_worst_jobs.back().first = index;
      if (engine::absorb(into.q_out, from.q_out)) report_.float_worst_jobs.back().second = index;
    }
    const bool failed = result->failure.has_value();
    take_job_result(b, name, index, std::move(*result));
    if (failed && !options_.keep_going) return;
  }
  if (not_started > 0)
    note_stop(std::to_string(not_started) + " of " + std::to_string(mine.size()) + " scenarios on " + name);
  if (step_update_missing_)
    report_.not_run.push_back("step update on " + name +
                              ": the backend does not implement it (its metadata was checked)");
}

const traces::LogReuse& Campaign::log_reuse(int64_t block_size) {
  auto it = log_reuse_.find(block_size);
  if (it == log_reuse_.end()) {
    it = log_reuse_.emplace(block_size, options_.log_reuse(block_size)).first;
  }
  return it->second;
}

void Campaign::take_job_result(size_t b, const std::string& name, int64_t index, JobResult result) {
  if (row_of_workload_.count(result.workload) == 0) {
    row_of_workload_[result.workload] = report_.rows.size();
    report_.add("scenarios: " + result.workload, name);
  }
  CheckRow& row = report_.rows[row_of_workload_[result.workload]];
  ++row.cases;
  row.seconds += result.seconds;
  report_.coverage += result.coverage;
  report_.input_space += result.input_space;
  report_.sharing += result.sharing;
  report_.evictions += result.evictions;
  if (!result.log_first_start.empty() && options_.log_reuse) {
    const traces::LogReuse& reuse = log_reuse(result.block_size);
    report_.log_implied_reusable += reuse.reusable_positions;
    report_.log_implied_reused += traces::reused_of_implied(reuse.per_request, result.log_first_start);
  }
  if (!result.cuda_kernel_path.empty()) report_.kernel_path_steps[result.cuda_kernel_path] += result.coverage.steps;
  for (const auto& [grid, steps] : result.cuda_grid_steps) report_.grid_steps[grid] += steps;
  for (const std::string& what : result.declined)
    if (declined_.insert(result.workload + ": " + what).second)
      report_.not_run.push_back("scenarios of " + result.workload + " on " + name + ": " + what);
  if (!result.declined.empty()) ++declared_limits(name).declined;
  for (size_t k = 0; k < result.excluded.size(); ++k)
    note_excluded(name, "scenarios", result.excluded[k],
                  k == 0 ? result.excluded_input_space : engine::InputSpaceCoverage{});
  JobRecord record{index,    name,          result.workload, result.seed, result.steps_run,
                   "passed", result.device, result.seconds};
  if (result.failure)
    record.result = "failed";
  else if (result.stopped)
    record.result = "stopped";
  report_.jobs.push_back(record);
  step_update_missing_ |= !result.step_update_ran && result.declined.empty();
  if (result.device >= 0) {
    auto it = std::find_if(report_.run.devices.begin(), report_.run.devices.end(),
                           [&](const RunFacts::Device& d) { return d.device == result.device; });
    if (it == report_.run.devices.end()) it = report_.run.devices.insert(it, RunFacts::Device{result.device});
    ++it->jobs;
    it->steps += result.steps_run;
    it->seconds += result.seconds;
  }
  if (result.failure) {
    if (report_.first_failure_step < 0) report_.first_failure_step = result.failure->step;
    CheckFinding f;
    f.order = campaign_order(b, CampaignPhase::kScenarios, index);
    f.job = index;
    f.workload = result.workload;
    f.seed = result.seed;
    f.step = result.failure->step;
    f.what = "seed " + std::to_string(result.seed) + ", " + engine::to_string(*result.failure);
    f.device = result.device;
    const bool replayable = !result.failure->invalid_scenario;
    if (fail(row, std::move(f)) && replayable) add_pending(std::nullopt, "", std::move(result));
    return;
  }
  if (!result.unfinished.empty()) {
    std::string list;
    for (size_t k = 0; k < result.unfinished.size() && k < 20; ++k) list += (k ? ", " : "") + std::to_string(result.unfinished[k]);
    if (result.unfinished.size() > 20) list += ", ...";
    report_.not_run.push_back("seed " + std::to_string(result.seed) + " of " + result.workload + " on " + name + ": " +
                              std::to_string(result.unfinished.size()) + " requests of the window did not finish in " +
                              std::to_string(result.steps_run) + " steps (raise --steps): log indices " + list);
  }
  if (result.stopped)
    note_stop("seed " + std::to_string(result.seed) + " of " + result.workload + " from step " +
              std::to_string(result.steps_run) + " on " + name);
}

DeclaredLimits& Campaign::declared_limits(const std::string& name) {
  for (DeclaredLimits& d : report_.declared_limits)
    if (d.backend == name) return d;
  report_.declared_limits.push_back(DeclaredLimits{});
  report_.declared_limits.back().backend = name;
  return report_.declared_limits.back();
}

void Campaign::note_declarations(const std::string& name, const Backend& backend) {
  if (!hooks_.declarations) return;
  const std::vector<std::pair<std::string, std::string>> declared = hooks_.declarations(backend);
  if (declared.empty()) return;
  std::lock_guard<std::mutex> lock(declared_mutex_);
  DeclaredLimits& d = declared_limits(name);
  d.declared.insert(declared.begin(), declared.end());
  d.deviations = backend.deviations().names();
}

void Campaign::note_excluded(const std::string& name, const char* what, const std::string& why,
                            const engine::InputSpaceCoverage& classes) {
  DeclaredLimits& d = declared_limits(name);
  ++d.excluded[what];
  // One line per constraint, not per value: the numbers before the explanation become N.
  std::string kind;
  const size_t explanation = why.find(" (");
  for (size_t i = 0; i < why.size(); ++i) {
    const bool digit = i < explanation && std::isdigit(static_cast<unsigned char>(why[i]));
    if (!digit) kind += why[i];
    else if (kind.empty() || kind.back() != 'N') kind += 'N';
  }
  ++d.reasons[kind];
  d.excluded_input_space += classes;
}

traces::GeneratedBatch Campaign::admitted_batch(const std::string& name, const Backend& backend, int64_t i) {
  traces::GeneratedBatch generated = campaign_batch(options_.seed, i);
  for (int attempt = 1; attempt < kMaxRedraws; ++attempt) {
    const auto why = backend.excludes(generated.input);
    if (!why) break;
    engine::InputSpaceCoverage classes;
    classes.add_batch(generated.input);
    note_excluded(name, "batches", *why, classes);
    generated = campaign_batch(options_.seed, i, attempt);
  }
  return generated;
}

void Campaign::judge_exclusions() {
  report_.allowed_exclusions = options_.allowed_exclusions;
  if (!options_.allowed_exclusions) return;
  for (const std::string& id : untested_classes(report_)) {
    const auto& allowed = *options_.allowed_exclusions;
    if (std::find(allowed.begin(), allowed.end(), id) == allowed.end()) report_.exclusions_beyond_allowed.push_back(id);
  }
}

void Campaign::not_run(const std::string& name, const std::string& what, const Error& why) {
  report_.not_run.push_back(what + " on " + name + ": " + why.message);
}

void Campaign::write_reproducers() {
  new_phase();
  std::mutex progress_mutex;
  // Shrinking is the costly part: the scenario findings shrink on the --jobs threads at once.
  std::vector<size_t> scenario_pending;
  for (size_t i = 0; i < pending_.size(); ++i)
    if (pending_[i].job) scenario_pending.push_back(i);
  std::vector<traces::Scenario> shrunk(scenario_pending.size());
  if (!scenario_pending.empty())
    line("shrinking " + std::to_string(scenario_pending.size()) + " failing scenario(s) ...");
  // A worker fault shrinks like any failure, but each call of a candidate has at most
  // kFaultCandidateTimeout (the timeout is process-wide: set before the threads start) and the
  // shrink kFaultShrinkSeconds; the replays of the shrunk scenarios below run under it too.
  bool any_fault = false;
  for (size_t i : scenario_pending) any_fault |= pending_[i].job->failure->field == kWorkerFaultField;
  const WorkerTimeoutFor candidate_timeout(hooks_, any_fault ? kFaultCandidateTimeout : std::chrono::milliseconds::max());
  run_pool(static_cast<int64_t>(scenario_pending.size()), static_cast<int>(std::max<int64_t>(1, options_.threads)), false,
           [&](int64_t k, int, const std::function<bool()>&) {
             const Pending& p = pending_[scenario_pending[static_cast<size_t>(k)]];
             const std::string& backend = report_.findings[p.finding].backend;
             const bool fault = p.job->failure->field == kWorkerFaultField;
             shrunk[static_cast<size_t>(k)] = shrink_failure(
                 p.job->scenario, *p.job->failure, [&] { return hooks_.make_backend(backend, -1); }, tolerance_,
                 [&](const traces::Scenario& s, int64_t tries) {
                   std::lock_guard<std::mutex> lock(progress_mutex);
                   progress("shrinking " + backend + " seed " + std::to_string(p.job->seed) + ": " +
                                   std::to_string(tries) + " tries, " + std::to_string(s.steps.size()) + " steps left");
                 },
                 [&] { return stop_requested(); }, fault ? kFaultShrinkSeconds : 0);
             return false;
           });
  size_t next_shrunk = 0;
  for (Pending& p : pending_) {
    CheckFinding& finding = report_.findings[p.finding];
    if (p.batch)
      write_batch_reproducer(finding, p.batch_what, *p.batch);
    else
      write_scenario_reproducer(finding, *p.job, shrunk[next_shrunk++]);
    if (report_.reproducer.empty() && !finding.reproducer.empty()) {
      report_.reproducer = finding.reproducer;
      report_.replay_command = finding.replay_command;
    }
  }
  pending_.clear();
}

void Campaign::write_scenario_reproducer(CheckFinding& finding, const JobResult& result, const traces::Scenario& small) {
  const std::string& name = finding.backend;
  const std::string file = options_.out_dir + "/qsacheck-repro-" + file_safe(name) + "-" + result.workload + "-" +
                           std::to_string(result.seed) + ".scenario";
  std::ostringstream text;
  traces::write_scenario(text, small, {}, tolerance_);
  if (auto why = observer_.write_file(file, text.str())) {
    report_.unwritten.push_back("the reproducer " + file + " (" + *why + ")");
    return;
  }
  auto backend = hooks_.make_backend(name, -1);
  engine::RunOptions options;
  options.float_tolerance = tolerance_;
  const auto again = engine::run_scenario(small, *backend, options);
  line("shrunk " + name + " " + result.workload + " seed " + std::to_string(result.seed) + " to " +
                  std::to_string(small.steps.size()) + " steps, " + std::to_string(engine::requests_of(small).size()) +
                  " requests; it fails " + (again ? engine::to_string(*again) : std::string("(no longer fails?)")));
  finding.reproducer = file;
  finding.replay_command =
      engine::replay_command(name, file, tolerance_);
}

void Campaign::note_stop(const std::string& what_is_left) {
  if (report_.stopped_by.empty()) report_.stopped_by = observer_.stop_reason ? observer_.stop_reason() : "a stop request";
  report_.not_run.push_back(what_is_left + " (stopped by " + report_.stopped_by + ")");
}

}  // namespace qsa::engine
