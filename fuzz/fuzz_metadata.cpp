// fuzz_metadata: bytes -> one metadata input (metadata_decoder.hpp), usually valid and edge-shaped,
// sometimes invalid.
// - Invalid (by an independent reading of SPEC 1.4): the reference answers kInvalidInput with that
//   field and rule, and writes nothing; every other backend answers the same error.
// - Valid: the reference answers kOk and its output keeps the invariants of SPEC 7.4; every other
//   backend (differential mode, fuzz_support.hpp) produces the same output bit for bit.
// A finding prints what differed and traps.

#include <cstdint>
#include <exception>
#include <string>

#include "fuzz_support.hpp"
#include "metadata_decoder.hpp"
#include "qsa/invariants.hpp"
#include "qsa/traces/compare.hpp"
#include "qsa/traces/json_codec.hpp"

namespace {

using namespace qsa;
using fuzz::finding;
constexpr const char* kTarget = "fuzz_metadata";
constexpr int64_t kMaxValidRows = int64_t{1} << 20;  // valid batches up to 2^20 rows are run

bool same_output(const MetadataOutput& a, const MetadataOutput& b) {
  return a.token_to_req == b.token_to_req && a.logical_positions == b.logical_positions &&
         a.visible_blocks == b.visible_blocks && a.slot_mapping == b.slot_mapping &&
         a.k_work_metadata == b.k_work_metadata && a.split == b.split;
}

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
  if (text.size() > 4000) text = text.substr(0, 4000) + "...";
  return "\n  input: " + text;
}

void check_invalid(const MetadataInput& input, const fuzz::ExpectedError& expected) {
  const MetadataOutput poisoned = make_poisoned_metadata_output(input);
  MetadataOutput out = poisoned;
  Error error;
  const Status status = fuzz::reference_backend().build_metadata(input, &out, &error);
  if (status != Status::kInvalidInput)
    finding(kTarget, "validation",
            "SPEC 1.4 rejects this input (" + expected.field + " / " + expected.rule + ") but the reference answered " +
                to_string(status) + shown(input));
  if (error.field != expected.field || error.rule != expected.rule)
    finding(kTarget, "validation",
            "SPEC 1.4's first failure is " + expected.field + " / " + expected.rule + ", the reference reported " +
                to_string(error) + shown(input));
  if (!same_output(out, poisoned))
    finding(kTarget, "validation", "the reference wrote output for an input it rejected" + shown(input));
  for (const auto& backend : fuzz::differential_backends()) {
    MetadataOutput theirs = poisoned;
    Error their_error;
    const Status their_status = backend->build_metadata(input, &theirs, &their_error);
    if (their_status != Status::kInvalidInput || their_error != error)
      finding(kTarget, "validation-differential",
              backend->name() + " answered " + to_string(their_status) + " " + to_string(their_error) +
                  ", the reference " + to_string(error) + shown(input));
    if (!same_output(theirs, poisoned))
      finding(kTarget, "validation-differential",
              backend->name() + " wrote output for an invalid input" + shown(input));
  }
}

void check_valid(const MetadataInput& input) {
  const MetadataOutput poisoned = make_poisoned_metadata_output(input);
  MetadataOutput expected = poisoned;
  Error error;
  const Status status = fuzz::reference_backend().build_metadata(input, &expected, &error);
  if (status != Status::kOk)
    finding(kTarget, "validation",
            "SPEC 1.4 accepts this input but the reference answered " + std::string(to_string(status)) + " " +
                to_string(error) + shown(input));
  if (auto v = check_metadata_invariants(input, expected))
    finding(kTarget, "7.4-metadata-invariant", to_string(*v) + shown(input));
  for (const auto& backend : fuzz::differential_backends()) {
    MetadataOutput actual = poisoned;
    Error their_error;
    const Status their_status = backend->build_metadata(input, &actual, &their_error);
    if (their_status != Status::kOk)
      finding(kTarget, "metadata-status",
              backend->name() + " answered " + to_string(their_status) + " " + to_string(their_error) + shown(input));
    if (auto v = check_metadata_invariants(input, actual))
      finding(kTarget, "7.4-metadata-invariant", backend->name() + ": " + to_string(*v) + shown(input));
    if (auto m = traces::compare_metadata(input, expected, actual))
      finding(kTarget, "metadata-differential", backend->name() + " vs reference: " + m->to_string() + shown(input));
  }
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
