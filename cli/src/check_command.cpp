// `qsacheck check`: the main job. Runs the SPEC examples and the metadata invariants on generated
// batches on every chosen backend, compares backends bit for bit, and says what it did not run.

#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "output.hpp"
#include "qsa/backend.hpp"
#include "qsa/invariants.hpp"
#include "qsa/traces/batch_generator.hpp"
#include "qsa/traces/compare.hpp"
#include "qsa/traces/json_codec.hpp"
#include "qsa/traces/spec_examples.hpp"

namespace qsa::cli {
namespace {

struct CheckOptions {
  std::vector<std::string> backends;
  uint64_t seed = 1;
  int64_t batches = 3000;
  std::string json_path;
};

struct CheckRow {
  std::string check;
  std::string backend;
  int64_t cases = 0;
  int64_t failures = 0;
  double seconds = 0;
  std::string first_failure;
};

class Checker {
 public:
  explicit Checker(CheckOptions options) : options_(std::move(options)) {}

  int run() {
    if (!open_backends()) return kExitUsage;
    for (auto& [name, backend] : backends_) {
      run_spec_examples(name, *backend);
      run_ring_survival(name, *backend);
      run_generated_batches(name, *backend);
    }
    print_summary();
    if (!options_.json_path.empty()) write_json();
    return failed() ? kExitMismatch : kExitOk;
  }

 private:
  using Clock = std::chrono::steady_clock;

  bool open_backends() {
    auto& registry = BackendRegistry::global();
    std::vector<std::string> names = options_.backends.empty() ? registry.names() : options_.backends;
    for (const std::string& name : names) {
      auto backend = registry.create(name);
      if (!backend) {
        report_error(Error{"backend", -1, "unknown-backend", "\"" + name + "\" is not a registered backend"});
        return false;
      }
      std::string reason;
      if (backend->probe(&reason) != Status::kOk) {
        if (!options_.backends.empty()) {  // asked for by name: refusing to run it is an error
          report_error(Error{"backend", -1, "unavailable", name + " cannot run here: " + reason});
          return false;
        }
        not_run_.push_back("backend " + name + ": " + reason);
        continue;
      }
      backends_.emplace_back(name, std::move(backend));
    }
    if (!BackendRegistry::global().contains("reference")) return false;
    reference_ = registry.create("reference");
    return true;
  }

  CheckRow& row(const std::string& check, const std::string& backend) {
    rows_.push_back(CheckRow{check, backend, 0, 0, 0, ""});
    return rows_.back();
  }

  void record_failure(CheckRow& r, const std::string& what) {
    if (r.failures++ == 0) {
      r.first_failure = what;
      std::cerr << "FAIL " << r.check << " on " << r.backend << ": " << what << "\n";
    }
  }

  void run_spec_examples(const std::string& name, Backend& backend) {
    const auto start = Clock::now();
    CheckRow& r = row("SPEC 8 worked examples", name);
    for (const traces::MetadataExample& example : traces::spec_metadata_examples()) {
      ++r.cases;
      MetadataOutput out = make_poisoned_metadata_output(example.input);
      Error error;
      if (backend.build_metadata(example.input, &out, &error) != Status::kOk) {
        record_failure(r, example.name + ": " + to_string(error));
        continue;
      }
      if (auto diff = traces::compare_with_example(example, out)) record_failure(r, example.name + ": " + *diff);
      else if (auto v = check_metadata_invariants(example.input, out)) record_failure(r, example.name + ": " + to_string(*v));
    }
    r.seconds = seconds_since(start);
  }

  void run_ring_survival(const std::string& name, Backend& backend) {
    const auto start = Clock::now();
    CheckRow& r = row("SPEC 8 ring survival, s = 0..63", name);
    auto build = [&](const MetadataInput& in, MetadataOutput* out, Error* e) { return backend.build_metadata(in, out, e); };
    for (int64_t s = 0; s < 64; ++s, ++r.cases)
      if (auto failure = traces::check_ring_survival(s, build)) record_failure(r, *failure);
    r.seconds = seconds_since(start);
  }

  void run_generated_batches(const std::string& name, Backend& backend) {
    const auto start = Clock::now();
    CheckRow& r = row("metadata invariants (SPEC 7.4) + reference equality", name);
    for (int64_t i = 0; i < options_.batches; ++i) {
      traces::Rng rng = traces::Rng(options_.seed).fork(static_cast<uint64_t>(i));
      const traces::GeneratedBatch generated = traces::random_metadata_input(rng);
      ++r.cases;
      if (auto failure = check_one_batch(backend, generated.input)) {
        const std::string file = "qsacheck-failure-seed" + std::to_string(options_.seed) + "-batch" + std::to_string(i) + ".json";
        std::ofstream(file) << traces::metadata_input_to_json(generated.input).dump() << "\n";
        record_failure(r, "batch " + std::to_string(i) + " (" + traces::to_string(generated.shape) + "): " + *failure +
                              "\n  input written to " + file + "; replay: qsacheck eval metadata --backend " + name + " --input " + file);
        break;  // stop at the first disagreement
      }
      if (stderr_is_terminal() && (i + 1) % 100 == 0)
        std::cerr << "\r" << name << ": " << (i + 1) << "/" << options_.batches << " batches" << std::flush;
    }
    if (stderr_is_terminal()) std::cerr << "\r\033[K";
    r.seconds = seconds_since(start);
  }

  std::optional<std::string> check_one_batch(Backend& backend, const MetadataInput& input) {
    MetadataOutput out = make_poisoned_metadata_output(input);
    Error error;
    if (backend.build_metadata(input, &out, &error) != Status::kOk) return "build failed: " + to_string(error);
    if (auto v = check_metadata_invariants(input, out)) return to_string(*v);
    if (&backend == reference_.get()) return std::nullopt;
    MetadataOutput expected = make_poisoned_metadata_output(input);
    if (reference_->build_metadata(input, &expected, &error) != Status::kOk) return "reference failed: " + to_string(error);
    if (auto m = traces::compare_metadata(input, expected, out)) return "differs from the reference: " + m->to_string();
    return std::nullopt;
  }

  bool failed() const {
    for (const CheckRow& r : rows_)
      if (r.failures > 0) return true;
    return false;
  }

  void print_summary() const {
    std::cout << "qsacheck check: seed " << options_.seed << "\n\n";
    std::printf("%-52s %-10s %8s %8s %9s\n", "check", "backend", "cases", "failed", "seconds");
    for (const CheckRow& r : rows_)
      std::printf("%-52s %-10s %8lld %8lld %9.2f\n", r.check.c_str(), r.backend.c_str(), static_cast<long long>(r.cases),
                  static_cast<long long>(r.failures), r.seconds);
    std::cout << "\nNot run in this build:\n";
    for (const std::string& line : not_run_) std::cout << "  - " << line << "\n";
    std::cout << "  - scenario campaigns against the model oracle (SPEC 7.1-7.3, 7.5): not implemented yet\n"
              << "  - step-update campaigns (SPEC 5-6; try one step with `qsacheck eval step`): not implemented yet\n\n"
              << (failed() ? "RESULT: FAILED\n" : "RESULT: passed (metadata checks only; see 'Not run')\n");
  }

  void write_json() const {
    nlohmann::json j;
    j["seed"] = options_.seed;
    j["passed"] = !failed();
    j["checks"] = nlohmann::json::array();
    for (const CheckRow& r : rows_)
      j["checks"].push_back({{"check", r.check}, {"backend", r.backend}, {"cases", r.cases}, {"failures", r.failures},
                             {"seconds", r.seconds}, {"first_failure", r.first_failure}});
    j["not_run"] = not_run_;
    j["not_run"].push_back("scenario campaigns against the model oracle");
    j["not_run"].push_back("step update");
    std::ofstream(options_.json_path) << j.dump(2) << "\n";
  }

  static double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
  }

  CheckOptions options_;
  std::vector<std::pair<std::string, std::unique_ptr<Backend>>> backends_;
  std::unique_ptr<Backend> reference_;
  std::vector<CheckRow> rows_;
  std::vector<std::string> not_run_;
};

}  // namespace

void add_check_command(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<CheckOptions>();
  CLI::App* check = app.add_subcommand(
      "check",
      "Run the verification campaign on the chosen backends (default: every available one).\n"
      "Exit 0 when every check passed, 1 on the first disagreement (with a replay command).");
  check->add_option("--backend", options->backends, "Backend to check (repeatable); default every available one");
  check->add_option("--seed", options->seed, "Seed of the generated batches")->capture_default_str();
  check->add_option("--batches", options->batches, "Generated batches per backend")->capture_default_str()->check(CLI::NonNegativeNumber);
  check->add_option("--json", options->json_path, "Also write the result as JSON to FILE");
  check->callback([=] { *exit_code = Checker(*options).run(); });
}

}  // namespace qsa::cli
