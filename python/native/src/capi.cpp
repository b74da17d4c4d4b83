// The in-process reference calls (include/qsacheck/capi.h): the CLI's eval path without the CLI, so
// the bytes are those of `qsacheck eval` (cli/src/eval_command.cpp and cli/src/output.cpp do the same
// steps; python.reference_calls_match_qsacheck_eval holds them equal).

#include "qsacheck/capi.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <sstream>
#include <string>

#include "qsa/reference/metadata.hpp"
#include "qsa/reference/step_update.hpp"
#include "qsa/planted/catalog.hpp"
#include "qsa/reference/reference_backend.hpp"
#include "qsa/spec_examples.hpp"
#include "qsa/step_types.hpp"
#include "qsa/traces/choice.hpp"
#include "qsa/traces/edge_batch_generator.hpp"
#include "qsa/engine/float_comparator.hpp"
#include "qsa/engine/input_space.hpp"
#include "qsa/engine/input_space_coverage.hpp"
#include "qsa/traces/invalid_batch.hpp"
#include "qsa/traces/json_codec.hpp"
#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/scenario_file.hpp"
#include "qsa/engine/scenario_runner.hpp"
#include "qsa/traces/step_json.hpp"
#include "qsa/validate.hpp"

namespace {

constexpr int kOk = 0;
constexpr int kError = 2;  // qsacheck's exit code for bad input

char* copy_out(const std::string& text) {
  char* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (out != nullptr) std::memcpy(out, text.c_str(), text.size() + 1);
  return out;
}

// json.dump as cli/src/output.cpp's json_text: compact, invalid UTF-8 replaced.
std::string dump(const nlohmann::json& json) {
  return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

int fail(const qsa::Error& error, char** out) {
  *out = copy_out(dump(qsa::traces::error_to_json(error)));
  return kError;
}

// Runs `body` (which sets the result text) with the CLI's catch clauses.
template <class Body>
int guarded(char** out, Body body) {
  try {
    std::string text;
    qsa::Error error;
    if (!body(&text, &error)) return fail(error, out);
    *out = copy_out(text);
    return kOk;
  } catch (const qsa::InputError& e) {
    return fail(e.error(), out);
  } catch (const std::bad_alloc&) {
    return fail(qsa::Error{"memory", -1, "out-of-memory", "ran out of memory"}, out);
  } catch (const std::exception& e) {
    return fail(qsa::Error{"internal", -1, "exception", e.what()}, out);
  }
}

// traces::Choice over the caller's callbacks (Hypothesis's draws, from Python).
class CallbackChoice final : public qsa::traces::Choice {
 public:
  CallbackChoice(qsa_capi_range_fn range_fn, qsa_capi_chance_fn chance_fn, qsa_capi_seed_fn seed_fn, void* context)
      : range_(range_fn), chance_(chance_fn), seed_(seed_fn), context_(context) {}
  int64_t range(int64_t lo, int64_t hi) override {
    if (lo >= hi) return lo;  // Choice's contract; no decision to shrink
    const int64_t value = range_(context_, lo, hi);
    return value < lo ? lo : value > hi ? hi : value;
  }
  bool chance(uint64_t numerator, uint64_t denominator) override {
    return chance_(context_, numerator, denominator) != 0;
  }
  uint64_t seed() override { return seed_(context_); }

 private:
  qsa_capi_range_fn range_;
  qsa_capi_chance_fn chance_;
  qsa_capi_seed_fn seed_;
  void* context_;
};

bool batch_json(qsa::traces::Choice& choice, const char* kind, int64_t max_tokens, std::string* text,
                qsa::Error* error, bool invalid = false) {
  qsa::traces::EdgeBatchOptions options;
  if (kind != nullptr && *kind != '\0') {
    options.kind = qsa::parse_cache_kind(kind);
    if (!options.kind) {
      *error = qsa::Error{"kind", -1, "bad-argument", "expected compressed, ring, passthrough or empty"};
      return false;
    }
  }
  if (max_tokens > 0) options.max_tokens = max_tokens;
  qsa::traces::GeneratedBatch batch = qsa::traces::edge_metadata_batch(choice, options);
  if (invalid && !qsa::traces::break_one_rule(choice, &batch.input)) {
    *error = qsa::Error{"batch", -1, "not-broken", "no rule of SPEC 1.4 could be broken in the drawn batch"};
    return false;
  }
  *text = dump({{"shape", qsa::traces::to_string(batch.shape)},
                {"input", qsa::traces::metadata_input_to_json(batch.input)}});
  return true;
}

// The reference, recording each step's input and caches as `eval step` JSON before it runs.
class RecordingReference final : public qsa::reference::ReferenceBackend {
 public:
  explicit RecordingReference(nlohmann::json* steps) : steps_(steps) {}
  qsa::Status step_update(const qsa::StepInput& input, qsa::StepCaches* caches, qsa::StepOutput* output,
                          qsa::Error* error) override {
    steps_->push_back(qsa::traces::step_case_to_json(qsa::traces::StepCase{input, *caches}));
    return ReferenceBackend::step_update(input, caches, output, error);
  }

 private:
  nlohmann::json* steps_;
};

}  // namespace

extern "C" int qsa_capi_scenario_steps(const char* path, int64_t steps, char** out) {
  return guarded(out, [&](std::string* text, qsa::Error* error) {
    qsa::traces::ScenarioFile file = qsa::traces::read_scenario_file(path == nullptr ? "" : path);
    if (steps >= 0 && static_cast<size_t>(steps) < file.scenario.steps.size())
      file.scenario.steps.resize(static_cast<size_t>(steps));
    nlohmann::json cases = nlohmann::json::array();
    RecordingReference backend(&cases);
    if (const auto failure = qsa::engine::run_scenario(file.scenario, backend)) {
      *error = qsa::Error{"scenario", -1, "run-failed", qsa::engine::to_string(*failure)};
      return false;
    }
    *text = dump(cases);
    return true;
  });
}

extern "C" int qsa_capi_spec_examples(char** out) {
  return guarded(out, [&](std::string* text, qsa::Error*) {
    nlohmann::json inputs = nlohmann::json::array();
    for (const auto& example : qsa::spec_metadata_examples()) inputs.push_back(qsa::traces::metadata_input_to_json(example.input));
    *text = dump(inputs);
    return true;
  });
}

extern "C" int qsa_capi_draw_batch(qsa_capi_range_fn range, qsa_capi_chance_fn chance, qsa_capi_seed_fn seed,
                                   void* context, const char* kind, int64_t max_tokens, char** out) {
  return guarded(out, [&](std::string* text, qsa::Error* error) {
    CallbackChoice choice(range, chance, seed, context);
    return batch_json(choice, kind, max_tokens, text, error);
  });
}

extern "C" int qsa_capi_draw_invalid_batch(qsa_capi_range_fn range, qsa_capi_chance_fn chance, qsa_capi_seed_fn seed,
                                           void* context, const char* kind, int64_t max_tokens, char** out) {
  return guarded(out, [&](std::string* text, qsa::Error* error) {
    CallbackChoice choice(range, chance, seed, context);
    return batch_json(choice, kind, max_tokens, text, error, true);
  });
}

extern "C" int qsa_capi_generate_batch(uint64_t seed, const char* kind, int64_t max_tokens, char** out) {
  return guarded(out, [&](std::string* text, qsa::Error* error) {
    qsa::traces::Rng rng(seed);
    qsa::traces::RngChoice choice(rng);
    return batch_json(choice, kind, max_tokens, text, error);
  });
}

namespace {

bool metadata_json(qsa::Backend& backend, const char* json, std::string* text, qsa::Error* error) {
  const qsa::MetadataInput input =
      qsa::traces::metadata_input_from_json(qsa::traces::parse_json(json == nullptr ? "" : json));
  qsa::MetadataOutput output = qsa::make_poisoned_metadata_output(input);
  const qsa::Status status = backend.build_metadata(input, &output, error);
  if (status != qsa::Status::kOk) {
    if (error->field.empty()) *error = qsa::Error{"backend", -1, qsa::to_string(status), backend.name() + " failed"};
    return false;
  }
  std::ostringstream stream;
  qsa::traces::write_metadata_output_json(stream, output);
  *text = stream.str() + "\n";
  return true;
}

}  // namespace

extern "C" int qsa_capi_eval_metadata(const char* json, char** out) {
  return guarded(out, [&](std::string* text, qsa::Error* error) {
    qsa::reference::ReferenceBackend reference;
    return metadata_json(reference, json, text, error);
  });
}

extern "C" int qsa_capi_eval_metadata_planted(const char* name, const char* json, char** out) {
  return guarded(out, [&](std::string* text, qsa::Error* error) {
    for (const auto& planted_bug : qsa::planted::catalog()) {
      if (name != nullptr && planted_bug.name == name) {
        const auto backend = qsa::planted::make_planted_backend(planted_bug.bug);
        return metadata_json(*backend, json, text, error);
      }
    }
    *error = qsa::Error{"backend", -1, "unknown-backend", "no planted bug of the CPU set named " +
                                                             std::string(name == nullptr ? "" : name)};
    return false;
  });
}

extern "C" int qsa_capi_eval_step(const char* json, int with_pooled, char** out) {
  return guarded(out, [&](std::string* text, qsa::Error* error) {
    qsa::traces::StepCase step = qsa::traces::step_case_from_json(qsa::traces::parse_json(json == nullptr ? "" : json));
    if (qsa::validate_step(step.input, step.caches, error) != qsa::Status::kOk) return false;
    qsa::StepOutput output = qsa::make_poisoned_step_output(step.input);
    std::vector<qsa::reference::PooledGroup> pooled;
    const qsa::Status status =
        qsa::reference::step_update(step.input, &step.caches, &output, error, with_pooled ? &pooled : nullptr);
    if (status != qsa::Status::kOk) {
      if (error->field.empty()) *error = qsa::Error{"backend", -1, qsa::to_string(status), "reference failed"};
      return false;
    }
    *text = dump(qsa::traces::step_result_to_json(step.input, step.caches, output, with_pooled ? &pooled : nullptr));
    return true;
  });
}

extern "C" int qsa_capi_compare_rows(const uint8_t* expected, const uint8_t* actual, int64_t rows, int64_t width,
                                     int element_bytes, const char* tolerance, char** out) {
  return guarded(out, [&](std::string* text, qsa::Error* error) {
    const auto mode = qsa::traces::parse_float_tolerance(tolerance == nullptr ? "exact" : tolerance);
    if (!mode || (element_bytes != 1 && element_bytes != 2) || rows < 0 || width < 0) {
      *error = qsa::Error{"tolerance", -1, "bad-argument", qsa::traces::kFloatToleranceRule};
      return false;
    }
    nlohmann::json result = {{"equal", true}, {"first_element", -1}, {"count", 0}, {"unit", ""}, {"distance", 0}};
    const auto comparator = qsa::engine::make_float_comparator(*mode);
    for (int64_t row = 0; row < rows; ++row) {
      const int64_t at = row * width * element_bytes;
      if (comparator->accepts_row(expected + at, actual + at, width, element_bytes)) continue;
      const auto distances = qsa::engine::row_ulp_distances(expected + at, actual + at, width, element_bytes);
      for (int64_t i = 0; i < width; ++i) {
        const bool same = std::memcmp(expected + at + i * element_bytes, actual + at + i * element_bytes,
                                      static_cast<size_t>(element_bytes)) == 0;
        const bool accepted = mode->exact() ? same : distances[static_cast<size_t>(i)] <= static_cast<double>(mode->ulps);
        if (accepted) continue;
        if (result["equal"].get<bool>()) {
          result["equal"] = false;
          result["first_element"] = row * width + i;
          const double d = distances[static_cast<size_t>(i)];
          result["distance"] = d == d && d < 1e300 ? nlohmann::json(d) : nlohmann::json("inf");
        }
        result["count"] = result["count"].get<int64_t>() + 1;
      }
    }
    result["unit"] = mode->exact() ? "elements" : "elements beyond " + std::to_string(mode->ulps) + " row-ulps";
    *text = dump(result);
    return true;
  });
}

extern "C" int qsa_capi_batch_coverage(const char* json_array, char** out) {
  return guarded(out, [&](std::string* text, qsa::Error*) {
    qsa::engine::InputSpaceCoverage coverage;
    for (const auto& batch : qsa::traces::parse_json(json_array == nullptr ? "" : json_array))
      coverage.add_batch(qsa::traces::metadata_input_from_json(batch));
    nlohmann::json rows = nlohmann::json::array();
    for (int i = 0; i < qsa::engine::kNumInputClasses; ++i) {
      const auto id = static_cast<qsa::engine::InputClassId>(i);
      const qsa::engine::InputClass& row = qsa::engine::input_class(id);
      if (row.scope == qsa::engine::InputScope::kStep) continue;
      rows.push_back({{"id", row.id}, {"scope", qsa::engine::to_string(row.scope)}, {"count", coverage.at(id).count},
                      {"missed_edges", coverage.missed_edges(id)}});
    }
    *text = dump(rows);
    return true;
  });
}

extern "C" void qsa_capi_free(char* text) { std::free(text); }
