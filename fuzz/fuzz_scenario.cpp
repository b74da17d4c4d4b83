// fuzz_scenario: bytes -> a short scenario, valid by construction (scenario_builder.hpp), stepped
// through the reference with every check of engine::ScenarioRunner after every step: metadata of
// the three kinds against the invariants of SPEC 7.4, the step update's writes (SPEC 7.5), the Q
// path, and the model oracle (SPEC 7.1-7.3) on every request the step touched, with a sweep of all
// live requests every few steps; then, in differential mode, through every other backend, compared
// with the reference bit for bit. ScenarioRunner reporting `invalid_scenario` is a builder bug;
// any other failure is a finding. Both print the scenario file that replays it and trap.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <string>

#include "fuzz_support.hpp"
#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/scenario_file.hpp"
#include "qsa/engine/replay_command.hpp"
#include "qsa/engine/step_loop.hpp"
#include "qsa/engine/scenario_runner.hpp"
#include "scenario_builder.hpp"

namespace {

using namespace qsa;
using fuzz::finding;
constexpr const char* kTarget = "fuzz_scenario";

// The scenario as a file `qsacheck replay --backend NAME FILE` reads.
std::string as_file(const traces::Scenario& s) {
  std::ostringstream out;
  try {
    traces::write_scenario(out, s, {}, fuzz::fuzz_float_tolerance());
  } catch (const std::exception& e) {
    return std::string("(cannot be written: ") + e.what() + ")";
  }
  return out.str();
}

void run_on(Backend& backend, const traces::Scenario& s) {
  engine::RunOptions options;
  options.sweep_every = 4;         // short scenarios: sweep every live request's groups often
  options.full_compare_every = 1;  // and compare both whole caches after every step (a stray write at its step)
  options.float_tolerance = fuzz::fuzz_float_tolerance();
  engine::ScenarioRunner runner(s.config, backend, options);
  const auto failure = engine::run_steps(runner, s.steps).failure;
  if (failure) {
    const std::string replay = "\n  the scenario (save it as x.scenario; " +
                               engine::replay_command(backend.name(), "x.scenario", options.float_tolerance) +
                               "):\n" + as_file(s);
    if (failure->invalid_scenario)
      finding(kTarget, "builder", "the builder made an invalid scenario: " + engine::to_string(*failure) + replay);
    finding(kTarget, failure->check.to_string(), backend.name() + ": " + engine::to_string(*failure) + replay);
  }
}

// QSA_FUZZ_PRINT=1: each input's scenario, its coverage line, then the file (to see what the
// bytes mean, e.g. `QSA_FUZZ_PRINT=1 build/bin/fuzz_scenario fuzz/corpus/fuzz_scenario`).
void print(const traces::Scenario& s) {
  static const bool enabled = std::getenv("QSA_FUZZ_PRINT") != nullptr;
  if (!enabled) return;
  const traces::Coverage c = traces::coverage_of(s);
  std::fprintf(
      stderr,
      "scenario: %lld steps, %lld requests, %lld rows, %lld ring wraps, %lld drafts rejected, %lld preemptions, "
      "%lld prefix hits, %lld padded steps, %lld groups, %lld negative common slots%s%s\n%s",
      static_cast<long long>(c.steps), static_cast<long long>(c.requests), static_cast<long long>(c.rows),
      static_cast<long long>(c.ring_wraps), static_cast<long long>(c.drafts_rejected),
      static_cast<long long>(c.preemptions), static_cast<long long>(c.prefix_hits),
      static_cast<long long>(c.padded_steps), static_cast<long long>(c.groups_closed),
      static_cast<long long>(c.negative_common_slots), s.config.mrope ? ", MRoPE" : "",
      s.config.store_dtype == StoreDtype::kFp8E4m3 ? ", fp8" : "", as_file(s).c_str());
}

void run(const uint8_t* data, size_t size) {
  fuzz::Decoder in(data, size);
  const traces::Scenario s = fuzz::build_scenario(in);
  print(s);
  try {
    traces::validate_config(s.config);
  } catch (const InputError& e) {
    finding(kTarget, "builder", std::string("the builder made an invalid configuration: ") + e.what());
  }
  run_on(fuzz::reference_backend(), s);
  for (const auto& backend : fuzz::differential_backends()) run_on(*backend, s);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::announce_backends(kTarget);
  fuzz::run_input(kTarget, [&] { run(data, size); });
  return 0;
}
