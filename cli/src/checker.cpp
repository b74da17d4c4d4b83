#include "checker.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <set>
#include <sstream>

#include "backend_choice.hpp"
#include "float_tolerance_option.hpp"
#include "output.hpp"
#include "output_file.hpp"
#include "qsa/backends/worker_backend.hpp"
#include "qsa/backends/worker_command.hpp"
#include "qsa/spec_examples.hpp"
#include "qsa/traces/batch_generator.hpp"
#include "qsa/traces/check_engine.hpp"
#include "qsa/traces/invalid_batch.hpp"
#include "qsa/traces/json_codec.hpp"
#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/scenario_file.hpp"
#include "qsa/traces/shrinker.hpp"
#include "stop_request.hpp"

namespace qsa::cli {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// A backend name in a file name: a worker's command may hold blanks, quotes and long paths.
std::string file_safe(std::string name) {
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '-' && ch != '_') ch = '_';
  return name.size() > 80 ? name.substr(0, 80) : name;
}

// The backend name and a file as shell words of a printed command (a worker's name holds blanks).
std::string replay_command(const std::string& name, const std::string& file) {
  return "qsacheck replay --backend " + backends::join_worker_command({name, file});
}

// Shrinking a worker fault (a crash, a hang, a broken frame: a failure of its own kind): each
// candidate runs in a fresh worker with at most this timeout per call, and the shrink keeps what it
// has after kFaultShrinkSeconds, since a worker that hangs costs every candidate its timeout.
constexpr std::chrono::milliseconds kFaultCandidateTimeout{10000};
constexpr double kFaultShrinkSeconds = 60;

// Sets the worker timeout for a scope.
class WorkerTimeoutFor {
 public:
  explicit WorkerTimeoutFor(std::chrono::milliseconds timeout) : saved_(backends::worker_timeout()) {
    backends::set_worker_timeout(std::min(saved_, timeout));
  }
  ~WorkerTimeoutFor() { backends::set_worker_timeout(saved_); }
  WorkerTimeoutFor(const WorkerTimeoutFor&) = delete;
  WorkerTimeoutFor& operator=(const WorkerTimeoutFor&) = delete;

 private:
  std::chrono::milliseconds saved_;
};

}  // namespace

Checker::Checker(CheckOptions options) : options_(std::move(options)) { report_.seed = options_.seed; }

CheckReport Checker::run() {
  Error error;
  if (!parse_float_tolerance_flag(options_.float_tolerance, &tolerance_, &error)) {
    report_.setup_error = error;
    return report_;
  }
  report_.float_tolerance = tolerance_;
  report_.backends = choose_backends(options_.backends, &report_.unavailable, &error);
  if (report_.backends.empty()) {
    report_.setup_error = error.field.empty() ? Error{"backend", -1, "none", "no backend can run here"} : error;
    return report_;
  }
  std::vector<CampaignJob> jobs;
  try {
    jobs = campaign();
    // Every scenario's caches are sized now, before anything is allocated or run.
    for (const CampaignJob& job : jobs) traces::resolve_workload(job.workload, job.seed);
  } catch (const traces::InputError& e) {
    report_.setup_error = e.error();
    return report_;
  }
  for (size_t b = 0; b < report_.backends.size(); ++b) {
    const std::string& name = report_.backends[b];
    auto backend = BackendRegistry::global().create(name);
    run_spec_examples(name, *backend);
    if (!report_.failed()) run_generated_batches(name, *backend);
    if (!report_.failed()) run_invalid_batches(name, *backend);
    if (!report_.failed() && report_.stopped_by.empty()) run_scenarios(name, *backend, jobs);
    if (report_.failed()) break;
    if (!report_.stopped_by.empty()) {
      for (size_t rest = b + 1; rest < report_.backends.size(); ++rest)
        report_.not_run.push_back("every check of " + report_.backends[rest] + " (stopped by " + report_.stopped_by +
                                  ")");
      break;
    }
  }
  return report_;
}

std::vector<CampaignJob> Checker::campaign() const {
  if (!options_.requests_csv.empty())
    return workload_campaign(traces::workload_from_requests_csv(options_.requests_csv), options_.seed,
                             options_.scenarios, steps_or(600));
  if (!options_.workload.empty())
    return workload_campaign(traces::workload_by_name(options_.workload), options_.seed, options_.scenarios,
                             steps_or(600));
  std::vector<CampaignJob> jobs = default_campaign(options_.seed);
  if (options_.steps > 0)
    for (CampaignJob& job : jobs) job.steps = options_.steps;
  return jobs;
}

int64_t Checker::steps_or(int64_t fallback) const { return options_.steps > 0 ? options_.steps : fallback; }

void Checker::fail(CheckRow& row, const std::string& what) {
  if (row.failures++ == 0) row.first_failure = what;
}

void Checker::run_spec_examples(const std::string& name, Backend& backend) {
  const auto start = Clock::now();
  CheckRow& row = report_.add("SPEC 8 worked examples and ring survival", name);
  for (const MetadataExample& example : spec_metadata_examples()) {
    const traces::MetadataRun run = traces::run_metadata(backend, example.input);
    if (is_declined(run.status, run.error)) {
      not_run(name, "SPEC 8 example " + example.name, run.error);
      continue;
    }
    ++row.cases;
    if (auto finding = traces::judge_metadata(example.input, run, traces::MetadataChecks{true, nullptr}))
      fail(row, example.name + ": " + finding->to_string());
    else if (auto diff = compare_with_example(example, run.output))
      fail(row, example.name + ": " + *diff);
  }
  Error declined;
  auto build = [&](const MetadataInput& in, MetadataOutput* out, Error* e) {
    const Status status = backend.build_metadata(in, out, e);
    if (is_declined(status, *e)) declined = *e;
    return status;
  };
  for (int64_t s = 0; s < 64 && declined.rule.empty(); ++s, ++row.cases)
    if (auto failure = check_ring_survival(s, build); failure && declined.rule.empty()) fail(row, *failure);
  if (!declined.rule.empty()) not_run(name, "ring survival", declined);
  row.seconds = since(start);
}

void Checker::run_generated_batches(const std::string& name, Backend& backend) {
  const auto start = Clock::now();
  const size_t row_index = report_.rows.size();
  report_.add("metadata on generated batches (SPEC 7.4, reference)", name);
  ProgressLine progress(options_.quiet);
  int64_t declined_batches = 0;
  for (int64_t i = 0; i < options_.batches; ++i) {
    if (stop_requested()) {
      note_stop("metadata batches " + std::to_string(i) + " ... " + std::to_string(options_.batches - 1) + " on " +
                name + " and its scenarios");
      break;
    }
    CheckRow& row = report_.rows[row_index];
    ++row.cases;
    traces::Rng rng = traces::Rng(options_.seed).fork(static_cast<uint64_t>(i));
    const traces::GeneratedBatch generated = traces::random_metadata_input(rng);
    Error declined;
    auto failure = check_batch(backend, generated.input, &declined);
    if (!declined.rule.empty()) {
      --row.cases;
      ++declined_batches;
      continue;
    }
    if (failure) {
      fail(row, "batch " + std::to_string(i) + " (" + traces::to_string(generated.shape) + "): " + *failure);
      if (options_.shrink) write_batch_reproducer(name, "batch" + std::to_string(i), generated.input);
      break;
    }
    progress.update(name + ": metadata batch " + std::to_string(i + 1) + "/" + std::to_string(options_.batches));
  }
  report_.rows[row_index].seconds = since(start);
  if (declined_batches > 0)
    report_.not_run.push_back(std::to_string(declined_batches) + " generated metadata batches on " + name +
                              ": outside the backend's declared capabilities");
}

std::optional<std::string> Checker::check_batch(Backend& backend, const MetadataInput& input, Error* declined) {
  const traces::MetadataRun run = traces::run_metadata(backend, input);
  if (is_declined(run.status, run.error)) {
    *declined = run.error;
    return std::nullopt;
  }
  const traces::MetadataRun expected = traces::reference_metadata(input);
  if (auto finding = traces::judge_metadata(input, run, traces::MetadataChecks{true, &expected}))
    return finding->to_string();
  return std::nullopt;
}

void Checker::write_batch_reproducer(const std::string& name, const std::string& what, const MetadataInput& input) {
  const std::string file = options_.out_dir + "/qsacheck-failure-" + file_safe(name) + "-" + what + ".json";
  if (auto why = write_file_atomically(file, json_text(traces::metadata_input_to_json(input)) + "\n")) {
    report_.unwritten.push_back("the reproducer " + file + " (" + *why + ")");
    return;
  }
  report_.reproducer = file;
  report_.replay_command = replay_command(name, file);
}

void Checker::run_invalid_batches(const std::string& name, Backend& backend) {
  const auto start = Clock::now();
  CheckRow& row = report_.add("validation errors on invalid batches (SPEC 1.4, reference)", name);
  const int64_t count = std::max<int64_t>(1, options_.batches / 10);
  for (int64_t i = 0; i < count; ++i) {
    ++row.cases;
    traces::Rng rng = traces::Rng(options_.seed ^ 0x1a7a11dULL).fork(static_cast<uint64_t>(i));
    const traces::GeneratedBatch generated = traces::random_invalid_metadata_input(rng);
    Error declined;  // stays empty: validation comes before any capability (docs/decisions.md)
    if (auto failure = check_batch(backend, generated.input, &declined)) {
      fail(row, "invalid batch " + std::to_string(i) + ": " + *failure);
      if (options_.shrink) write_batch_reproducer(name, "invalid-batch" + std::to_string(i), generated.input);
      break;
    }
  }
  row.seconds = since(start);
}

void Checker::run_scenarios(const std::string& name, Backend& backend, const std::vector<CampaignJob>& jobs) {
  ProgressLine progress(options_.quiet);
  bool step_update_missing = false;
  std::set<std::string> declined;                 // what the backend's capabilities left out, once each
  std::map<std::string, size_t> row_of_workload;  // indices: rows_ grows while we hold them
  traces::RunOptions run_options;
  run_options.float_tolerance = tolerance_;
  if (!tolerance_.exact()) {
    report_.float_statistics.emplace_back(name, traces::StepFloatStatistics(tolerance_.ulps));
    run_options.float_statistics = &report_.float_statistics.back().second;
  }
  for (size_t job_index = 0; job_index < jobs.size(); ++job_index) {
    const CampaignJob& job = jobs[job_index];
    if (stop_requested()) {
      note_stop(std::to_string(jobs.size() - job_index) + " of " + std::to_string(jobs.size()) + " scenarios on " +
                name);
      break;
    }
    if (row_of_workload.count(job.workload.name) == 0) {
      row_of_workload[job.workload.name] = report_.rows.size();
      report_.add("scenarios: " + job.workload.name, name);
    }
    const auto start = Clock::now();
    const JobResult result = run_job(
        job, backend,
        [&](const CampaignJob& j, int64_t step, const traces::Coverage& c, double seconds) {
          std::ostringstream os;
          os << name << " " << j.workload.name << " seed " << j.seed << ": step " << step << "/" << j.steps << ", "
             << c.rows << " rows, " << c.requests << " requests, " << static_cast<int64_t>(seconds) << " s";
          progress.update(os.str());
        },
        run_options);
    CheckRow& row = report_.rows[row_of_workload[job.workload.name]];
    ++row.cases;
    row.seconds += since(start);
    report_.coverage += result.coverage;
    step_update_missing |= !result.step_update_ran && result.declined.empty();
    for (const std::string& what : result.declined)
      if (declined.insert(job.workload.name + ": " + what).second)
        report_.not_run.push_back("scenarios of " + job.workload.name + " on " + name + ": " + what);
    if (result.failure) {
      report_.first_failure_step = result.failure->step;
      fail(row, "seed " + std::to_string(job.seed) + ", " + traces::to_string(*result.failure));
      progress.finish("FAIL " + name + " " + job.workload.name + " seed " + std::to_string(job.seed) + ": " +
                      traces::to_string(*result.failure));
      if (options_.shrink && !result.failure->invalid_scenario) write_reproducer(name, result, progress);
      return;
    }
    if (result.stopped) {
      progress.finish(name + " " + job.workload.name + " seed " + std::to_string(job.seed) + ": stopped after " +
                      std::to_string(result.steps_run) + " passing steps");
      note_stop("seed " + std::to_string(job.seed) + " of " + job.workload.name + " from step " +
                std::to_string(result.steps_run) + ", and " + std::to_string(jobs.size() - job_index - 1) +
                " more scenarios on " + name);
      break;
    }
    progress.finish(name + " " + job.workload.name + " seed " + std::to_string(job.seed) + ": " +
                    std::to_string(result.steps_run) + " steps passed (" +
                    std::to_string(static_cast<int64_t>(result.seconds * 1000)) + " ms)");
  }
  if (step_update_missing)
    report_.not_run.push_back("step update on " + name +
                              ": the backend does not implement it (its metadata was checked)");
}

void Checker::not_run(const std::string& name, const std::string& what, const Error& why) {
  report_.not_run.push_back(what + " on " + name + ": " + why.message);
}

void Checker::write_reproducer(const std::string& name, const JobResult& result, ProgressLine& progress) {
  const bool fault = result.failure->field == kWorkerFaultField;
  const WorkerTimeoutFor candidate_timeout(fault ? kFaultCandidateTimeout : backends::worker_timeout());
  progress.finish("shrinking the failing scenario (" + std::to_string(result.scenario.steps.size()) + " steps" +
                  (fault ? ", a worker fault: at most " + std::to_string(kFaultCandidateTimeout.count() / 1000) +
                               " s a call, " + std::to_string(static_cast<int>(kFaultShrinkSeconds)) + " s in all"
                         : std::string()) +
                  ") ...");
  const traces::Scenario small = shrink_failure(
      result.scenario, *result.failure, name, tolerance_,
      [&](const traces::Scenario& s, int64_t tries) {
        progress.update("shrinking: " + std::to_string(tries) + " tries, " + std::to_string(s.steps.size()) +
                        " steps left");
      },
      fault ? kFaultShrinkSeconds : 0);
  const std::string file = options_.out_dir + "/qsacheck-repro-" + file_safe(name) + "-" + result.workload + "-" +
                           std::to_string(result.seed) + ".scenario";
  std::ostringstream text;
  traces::write_scenario(text, small, {}, tolerance_);
  if (auto why = write_file_atomically(file, text.str())) {
    report_.unwritten.push_back("the reproducer " + file + " (" + *why + ")");
    return;
  }
  report_.reproducer = file;
  report_.replay_command =
      replay_command(name, file) + (tolerance_.exact() ? "" : " --float-tolerance " + tolerance_.to_string());
  auto backend = BackendRegistry::global().create(name);
  traces::RunOptions options;
  options.float_tolerance = tolerance_;
  const auto again = traces::run_scenario(small, *backend, options);
  progress.finish("shrunk to " + std::to_string(small.steps.size()) + " steps, " +
                  std::to_string(traces::requests_of(small).size()) + " requests; it fails " +
                  (again ? traces::to_string(*again) : std::string("(no longer fails?)")));
}

void Checker::note_stop(const std::string& what_is_left) {
  if (report_.stopped_by.empty()) report_.stopped_by = stop_reason();
  report_.not_run.push_back(what_is_left + " (stopped by " + report_.stopped_by + ")");
}

}  // namespace qsa::cli
