// fuzz_metadata: bytes -> one metadata input (metadata_decoder.hpp), usually valid and edge-shaped,
// sometimes invalid.
// - Invalid (by an independent reading of SPEC 1.4): the reference answers kInvalidInput with that
//   field and rule, and writes nothing; every other backend answers the same error and writes
//   nothing (the checking engine, engine/check_engine.hpp).
// - Valid: the reference answers kOk and its output keeps the invariants of SPEC 7.4; every other
//   backend (differential mode, fuzz_support.hpp) produces the same output bit for bit (the engine).
// A finding prints what differed and traps.

#include <cstdint>
#include <exception>
#include <string>

#include "fuzz_support.hpp"
#include "metadata_decoder.hpp"
#include "qsa/engine/check_engine.hpp"
#include "qsa/traces/json_codec.hpp"

namespace {

using namespace qsa;
using fuzz::finding;
constexpr const char* kTarget = "fuzz_metadata";
constexpr int64_t kMaxValidRows = int64_t{1} << 20;  // valid batches up to 2^20 rows are run

// The input as the JSON `qsacheck eval metadata --input FILE` reads, for the report.
std::string shown(const MetadataInput& input) {
  std::string text;
  try {
    MetadataInput printable = input;
    if (!fuzz::block_table_well_formed(printable.block_table))
      printable.block_table = BlockTable{};  // it cannot be read
    text = traces::metadata_input_to_json(printable).dump();
  } catch (const std::exception& e) {
    text = std::string("(not expressible as JSON: ") + e.what() + ")";
  }
  // Whole up to 1 MB, so that the printed input replays (`qsacheck eval metadata`, the engine
  // proof test): the edge-shaped generator's batches of more than 1024 requests run to ~100 KB.
  if (text.size() > (1u << 20)) text = text.substr(0, 1u << 20) + "...";
  return "\n  input: " + text;
}

void check_invalid(const MetadataInput& input, const fuzz::ExpectedError& expected) {
  const engine::MetadataRun reference = engine::run_metadata(fuzz::reference_backend(), input);
  if (reference.status != Status::kInvalidInput)
    finding(kTarget, "validation",
            "SPEC 1.4 rejects this input (" + expected.field + " / " + expected.rule + ") but the reference answered " +
                to_string(reference.status) + shown(input));
  if (reference.error.field != expected.field || reference.error.rule != expected.rule)
    finding(kTarget, "validation",
            "SPEC 1.4's first failure is " + expected.field + " / " + expected.rule + ", the reference reported " +
                to_string(reference.error) + shown(input));
  // Judged against its own answer, the reference is held to the one thing left: it wrote nothing.
  if (auto f = engine::judge_metadata(input, reference, engine::MetadataChecks{false, &reference}))
    finding(kTarget, "validation", "reference: " + f->to_string() + shown(input));
  for (const auto& backend : fuzz::differential_backends()) {
    const engine::MetadataRun run = engine::run_metadata(*backend, input);
    if (is_declined(run.status, run.error)) continue;  // outside a plugin's capabilities: not run
    if (auto f = engine::judge_metadata(input, run, engine::MetadataChecks{true, &reference}))
      finding(kTarget, f->check.to_string(), backend->name() + ": " + f->to_string() + shown(input));
  }
}

void check_valid(const MetadataInput& input) {
  const engine::MetadataRun reference = engine::run_metadata(fuzz::reference_backend(), input);
  if (reference.status != Status::kOk)
    finding(kTarget, "validation",
            "SPEC 1.4 accepts this input but the reference answered " + std::string(to_string(reference.status)) + " " +
                to_string(reference.error) + shown(input));
  if (auto f = engine::judge_metadata(input, reference, engine::MetadataChecks{true, nullptr}))
    finding(kTarget, f->check.to_string(), "reference: " + f->to_string() + shown(input));
  for (const auto& backend : fuzz::differential_backends())
    if (auto f = engine::check_metadata(*backend, input, engine::MetadataChecks{true, &reference}))
      finding(kTarget, f->check.to_string(), backend->name() + ": " + f->to_string() + shown(input));
}

void run(const uint8_t* data, size_t size) {
  fuzz::Decoder in(data, size);
  const MetadataInput input = fuzz::decode_metadata_input(in);
  if (const auto expected = fuzz::spec_validation(input))
    check_invalid(input, *expected);
  else if (input.batch.num_actual_tokens <= kMaxValidRows)
    check_valid(input);
  // else: a valid batch of more rows (a qsl entry perturbed to near 2^24 with matching seq_lens)
  // costs about 1 GB of outputs and says nothing new; the 10-minute run's RSS grew to 1.6 GB on
  // such rare inputs, close to libFuzzer's limit.
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::announce_backends(kTarget);
  fuzz::run_input(kTarget, [&] { run(data, size); });
  return 0;
}
