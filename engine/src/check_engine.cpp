#include "qsa/engine/check_engine.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <vector>

#include "qsa/engine/compare.hpp"
#include "qsa/engine/written_blocks.hpp"
#include "qsa/invariants.hpp"
#include "qsa/reference/metadata.hpp"
#include "qsa/reference/reference_backend.hpp"

namespace qsa::engine {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

std::string hex_byte(uint8_t v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", v);
  return buf;
}

std::string status_text(Status status, const Error& error) {
  return status == Status::kOk ? std::string("ok") : std::string(to_string(status)) + " (" + to_string(error) + ")";
}

Finding make_finding(CheckId check, std::string field, int64_t index, std::string expected, std::string actual,
                     std::string message) {
  return Finding{std::move(check), std::move(field), index, std::move(expected), std::move(actual), std::move(message)};
}

// ---- metadata ----

// SPEC 1.4: nothing is written on failure. The output must still be the poison it was given
// (empty vectors and a poisoned split for an invalid input: make_poisoned_metadata_output()).
std::optional<Finding> untouched_metadata(const MetadataInput& input, const MetadataOutput& actual) {
  const auto m = compare_metadata(input, make_poisoned_metadata_output(input), actual);
  if (!m) return std::nullopt;
  return make_finding(Check::kMetadataUntouched, m->field, m->index, m->expected, m->actual,
                      "written on an input the contract rejects: " + m->to_string() + " (expected: the poison)");
}

// Status, then (on an error) the error and the untouched output; shared by both operations.
// The status, error and fault checks of one operation.
struct StatusChecks {
  Check status, error, fault;
};
constexpr StatusChecks kMetadataChecks{Check::kMetadataStatus, Check::kMetadataError, Check::kMetadataFault};
constexpr StatusChecks kStepUpdateChecks{Check::kStepUpdateStatus, Check::kStepUpdateError, Check::kStepUpdateFault};

std::optional<Finding> judge_status(const StatusChecks& checks, Status expected_status, const Error& expected_error,
                                    Status actual_status, const Error& actual_error) {
  // A backend process that crashed, exited, hung or broke its protocol: a failure of its own kind
  // (step-update-worker-crashed, metadata-worker-timeout, ...), so a shrunk crash is still a crash.
  if (is_worker_fault(actual_status, actual_error))
    return make_finding(CheckId::fault(checks.fault, actual_error.rule), actual_error.field, -1, "a reply", actual_error.rule,
                        actual_error.message);
  if (expected_status != actual_status)
    return make_finding(checks.status, "status", -1, status_text(expected_status, expected_error),
                        status_text(actual_status, actual_error),
                        "expected " + status_text(expected_status, expected_error) + ", actual " +
                            status_text(actual_status, actual_error));
  if (expected_status != Status::kOk && expected_error != actual_error)
    return make_finding(checks.error, expected_error.field, expected_error.index, to_string(expected_error),
                        to_string(actual_error),
                        "expected error " + to_string(expected_error) + ", actual " + to_string(actual_error));
  return std::nullopt;
}

// ---- step update ----

std::string cache_byte_text(const char* name, const CacheLayout& layout, int64_t byte) {
  const CachePlace p = cache_place(layout, byte);
  return std::string(name) + " cache block " + str(p.block) + " row " + str(p.row) + " (slot " + str(p.slot) +
         ") byte " + str(p.column * layout.element_bytes + p.byte);
}

// In tolerance mode: how far the first unaccepted element lies, and the mode.
std::string distance_text(const FloatDifference& d, const FloatComparator* floats) {
  if (floats == nullptr || floats->tolerance().exact()) return "";
  std::ostringstream os;
  os << " (first at " << d.distance << " row-ulps; tolerance " << floats->tolerance().to_string() << ")";
  return os.str();
}

// The rows `slots` of two caches of one layout (their elements, not the padding around them), each
// row as a dense row of its own; the first differing byte is an offset into the whole cache.
std::optional<FloatDifference> compare_rows(const CacheLayout& l, ByteView expected, ByteView actual,
                                            const std::vector<int64_t>& slots, const FloatComparator* floats) {
  const FloatComparator& compare = floats != nullptr ? *floats : exact_float_comparator();
  const CacheLayout one_row = CacheLayout::dense(1, 1, l.width, l.element_bytes);
  const auto row_bytes = static_cast<size_t>(l.width * l.element_bytes);
  std::optional<FloatDifference> result;
  for (int64_t slot : slots) {
    const auto at = static_cast<size_t>(l.byte_offset(slot, 0));
    if (std::memcmp(&expected[at], &actual[at], row_bytes) == 0) continue;
    auto d = compare.compare(one_row, ByteView(&expected[at], row_bytes), ByteView(&actual[at], row_bytes));
    if (!d) continue;
    if (result) {
      result->count += d->count;
    } else {
      result = d;
      result->first_byte += static_cast<int64_t>(at);
    }
  }
  return result;
}

// Two whole caches of one layout, reading only the blocks either may have written (outside them
// both read zero: written_blocks.hpp); the first differing byte is an offset into the whole cache.
std::optional<FloatDifference> compare_written_blocks(const CacheLayout& l, const CacheBytes& expected,
                                                      const CacheBytes& actual, const FloatComparator* floats) {
  const FloatComparator& compare = floats != nullptr ? *floats : exact_float_comparator();
  std::optional<FloatDifference> result;
  for (const ByteRange& r : written_blocks(l, expected, actual)) {
    const size_t n = r.second - r.first;
    // Equal bytes are equal under every comparator: one memcmp settles the common case.
    if (std::memcmp(expected.data() + r.first, actual.data() + r.first, n) == 0) continue;
    auto d = compare.compare(stretch_layout(l, r), ByteView(expected.data() + r.first, n),
                             ByteView(actual.data() + r.first, n));
    if (!d) continue;
    if (result) {
      result->count += d->count;
    } else {
      result = d;
      result->first_byte += static_cast<int64_t>(r.first);
    }
  }
  return result;
}

// A cache against the reference's: the float comparator for the compressed rows, exact for the ring;
// only the rows `slots` when given.
std::optional<Finding> compare_cache(const char* name, const CacheBuffer& expected, const CacheBuffer& actual,
                                     const FloatComparator* floats, const std::vector<int64_t>* slots = nullptr) {
  const std::string field = std::string("cache.") + name;
  if (expected.bytes.size() != actual.bytes.size())
    return make_finding(Check::kStepDifferential, field, -1, str(static_cast<int64_t>(expected.bytes.size())) + " bytes",
                        str(static_cast<int64_t>(actual.bytes.size())) + " bytes",
                        std::string(name) + " cache changed size");
  const auto d = slots != nullptr ? compare_rows(expected.layout, expected.bytes, actual.bytes, *slots, floats)
                                  : compare_written_blocks(expected.layout, expected.bytes, actual.bytes, floats);
  if (!d) return std::nullopt;
  const auto at = static_cast<size_t>(d->first_byte);
  return make_finding(Check::kStepDifferential, field, cache_place(expected.layout, d->first_byte).slot,
                      hex_byte(expected.bytes[at]), hex_byte(actual.bytes[at]),
                      cache_byte_text(name, expected.layout, d->first_byte) + ": expected " +
                          hex_byte(expected.bytes[at]) + ", actual " + hex_byte(actual.bytes[at]) + "; " +
                          str(d->count) + " " + d->unit + " differ" + distance_text(*d, floats));
}

// Tolerance mode: the figures of the compressed rows this step writes, each at the request and
// position of the token that closes its group.
void tally_compressed(const CacheBuffer& expected, const CacheBuffer& actual, const MetadataOutput& metadata,
                      FloatStatistics& stats) {
  const CacheLayout& l = expected.layout;
  for (size_t t = 0; t < metadata.slot_mapping.size(); ++t) {
    const int64_t slot = metadata.slot_mapping[t];
    if (slot < 0 || l.past_the_cache(slot)) continue;
    FloatWorst where;
    where.request = metadata.token_to_req[t];
    where.position = metadata.logical_positions[t];
    where.row = slot;
    const int64_t offset = l.byte_offset(slot, 0);
    tally_row(stats, &expected.bytes[offset], &actual.bytes[offset], l.width, l.element_bytes, where);
  }
}

// The first index in [from, size) where a and b differ, or size. A step changes a few rows of a
// large cache, so equal stretches are skipped a chunk at a time (memcmp) before the byte search.
size_t next_difference(ByteView a, ByteView b, size_t from, size_t size) {
  constexpr size_t kChunk = 512;
  size_t i = from;
  while (i + kChunk <= size && std::memcmp(&a[i], &b[i], kChunk) == 0) i += kChunk;
  while (i < size && a[i] == b[i]) ++i;
  return i;
}

// SPEC 7.5: every changed byte lies in a row whose slot the reference's metadata names.
std::optional<Finding> unnamed_write(const char* name, const CacheBuffer& before, const CacheBuffer& after,
                                     const MetadataOutput& metadata) {
  const CacheLayout& l = before.layout;
  std::vector<int64_t> named;  // sorted: as many as the step names, however large the cache
  for (int64_t s : metadata.slot_mapping)
    if (s >= 0 && !l.past_the_cache(s)) named.push_back(s);
  std::sort(named.begin(), named.end());
  for (const ByteRange& r : written_blocks(l, before.bytes, after.bytes)) {  // elsewhere both read zero
    for (size_t i = next_difference(before.bytes, after.bytes, r.first, r.second); i < r.second;
         i = next_difference(before.bytes, after.bytes, i, r.second)) {
      const CachePlace p = cache_place(l, static_cast<int64_t>(i));
      if (p.row < l.rows && p.column < l.width && std::binary_search(named.begin(), named.end(), p.slot)) {
        i = static_cast<size_t>(l.byte_offset(p.slot, l.width));  // the rest of a named row may change
        continue;
      }
      return make_finding(
          Check::kWrites, std::string("cache.") + name, p.slot, hex_byte(before.bytes[i]), hex_byte(after.bytes[i]),
          std::string(name) + " cache block " + str(p.block) + " row " + str(p.row) + " (slot " + str(p.slot) +
              ", element " + str(p.column) + ") changed but no row of this step names that slot");
    }
  }
  return std::nullopt;
}

// q_out [N, HQ, D] against the reference's: one row per head of a token.
std::optional<Finding> compare_q_out(const StepInput& input, const StepOutput& expected, const StepOutput& actual,
                                     const StepChecks& checks) {
  if (expected.q_out.size() != actual.q_out.size())
    return make_finding(Check::kStepDifferential, "q_out", -1, str(static_cast<int64_t>(expected.q_out.size())) + " bytes",
                        str(static_cast<int64_t>(actual.q_out.size())) + " bytes", "q_out changed size");
  const int64_t heads = input.config.num_heads;
  const int64_t d = input.config.head_dim;
  const int eb = element_bytes(input.config.store_dtype);
  const CacheLayout rows = CacheLayout::dense(1, input.batch.num_actual_tokens * heads, d, eb);
  const FloatComparator& floats = checks.floats != nullptr ? *checks.floats : exact_float_comparator();
  const MetadataOutput* m = checks.compressed_metadata;
  if (checks.statistics != nullptr) {
    for (int64_t row = 0; row < rows.rows; ++row) {
      FloatWorst where;
      where.row = heads > 0 ? row / heads : 0;
      where.head = heads > 0 ? row % heads : 0;
      if (m != nullptr && where.row < static_cast<int64_t>(m->logical_positions.size()) &&
          m->logical_positions[static_cast<size_t>(where.row)] >= 0) {
        where.request = m->token_to_req[static_cast<size_t>(where.row)];
        where.position = m->logical_positions[static_cast<size_t>(where.row)];
      }
      const int64_t offset = rows.byte_offset(row, 0);
      tally_row(checks.statistics->q_out, &expected.q_out[offset], &actual.q_out[offset], d, eb, where);
    }
  }
  const auto diff = floats.compare(rows, expected.q_out, actual.q_out);
  if (!diff) return std::nullopt;
  const CachePlace p = cache_place(rows, diff->first_byte);
  const int64_t token = heads > 0 ? p.row / heads : 0;
  std::string where = "q_out row " + str(token) + " head " + str(heads > 0 ? p.row % heads : 0) + " element " +
                      str(p.column) + " byte " + str(p.byte);
  if (m != nullptr && token < static_cast<int64_t>(m->logical_positions.size())) {
    if (m->logical_positions[static_cast<size_t>(token)] >= 0)
      where += " (request " + str(m->token_to_req[static_cast<size_t>(token)]) + ", position " +
               str(m->logical_positions[static_cast<size_t>(token)]) + ")";
    else
      where += " (padding row)";
  }
  const auto at = static_cast<size_t>(diff->first_byte);
  return make_finding(Check::kStepDifferential, "q_out", token, hex_byte(expected.q_out[at]), hex_byte(actual.q_out[at]),
                      where + ": expected " + hex_byte(expected.q_out[at]) + ", actual " + hex_byte(actual.q_out[at]) +
                          "; " + str(diff->count) + " " + diff->unit + " differ" + distance_text(*diff, &floats));
}

std::optional<Finding> untouched_step(const StepInput& input, const StepCaches& before, const StepRun& actual) {
  if (auto d = compare_written_blocks(before.compressed.layout, before.compressed.bytes, actual.caches.compressed.bytes,
                                      nullptr);
      d || before.compressed.bytes.size() != actual.caches.compressed.bytes.size())
    return make_finding(Check::kStepUpdateUntouched, "cache.compressed", d ? d->first_byte : -1, "unchanged", "changed",
                        "the compressed cache changed on an input the contract rejects");
  if (auto d = compare_written_blocks(before.ring.layout, before.ring.bytes, actual.caches.ring.bytes, nullptr);
      d || before.ring.bytes.size() != actual.caches.ring.bytes.size())
    return make_finding(Check::kStepUpdateUntouched, "cache.ring", d ? d->first_byte : -1, "unchanged", "changed",
                        "the ring cache changed on an input the contract rejects");
  const StepOutput poisoned = make_poisoned_step_output(input);
  if (auto d = first_differing_byte(poisoned.q_out, actual.output.q_out);
      d || poisoned.q_out.size() != actual.output.q_out.size())
    return make_finding(Check::kStepUpdateUntouched, "q_out", d ? d->first_byte : -1, "unwritten", "written",
                        "q_out was written on an input the contract rejects");
  return std::nullopt;
}

}  // namespace

std::string Finding::key() const {
  std::string k = check.to_string() + " " + field;
  if (index >= 0) k += "[" + str(index) + "]";
  return k;
}

std::string Finding::to_string() const { return key() + ": " + message; }

CachePlace cache_place(const CacheLayout& layout, int64_t byte_offset) {
  CachePlace p;
  const int64_t element = byte_offset / layout.element_bytes;
  p.byte = byte_offset % layout.element_bytes;
  p.block = element / layout.block_stride;
  p.row = (element % layout.block_stride) / layout.row_stride;
  p.column = (element % layout.block_stride) % layout.row_stride;
  p.slot = p.block * layout.rows + p.row;
  return p;
}

MetadataRun run_metadata(Backend& backend, const MetadataInput& input) {
  MetadataRun run;
  run.output = make_poisoned_metadata_output(input);
  run.status = backend.build_metadata(input, &run.output, &run.error);
  // Declared deviations (an outside kernel's) are read here, once, for every check and digest.
  if (run.status == Status::kOk) apply_deviations(backend.deviations(), &run.output);
  return run;
}

MetadataRun reference_metadata(const MetadataInput& input) {
  MetadataRun run;
  run.output = make_poisoned_metadata_output(input);
  run.status = reference::build_metadata(input, &run.output, &run.error);
  return run;
}

std::optional<Finding> judge_metadata(const MetadataInput& input, const MetadataRun& actual,
                                      const MetadataChecks& checks) {
  const MetadataRun* expected = checks.expected;
  if (expected != nullptr) {
    if (auto f = judge_status(kMetadataChecks, expected->status, expected->error, actual.status, actual.error)) return f;
    if (expected->status != Status::kOk) return untouched_metadata(input, actual.output);
  } else if (actual.status != Status::kOk) {
    return judge_status(kMetadataChecks, Status::kOk, Error{}, actual.status, actual.error);
  }
  if (checks.invariants)
    if (auto v = check_metadata_invariants(input, actual.output))
      return make_finding(Check::kMetadataInvariant, v->invariant, v->row, "", "", to_string(*v));
  if (expected != nullptr)
    if (auto m = compare_metadata(input, expected->output, actual.output))
      return make_finding(Check::kMetadataDifferential, m->field, m->index, m->expected, m->actual, m->to_string());
  return std::nullopt;
}

std::optional<Finding> check_metadata(Backend& backend, const MetadataInput& input, const MetadataChecks& checks,
                                      MetadataRun* actual) {
  MetadataRun run = run_metadata(backend, input);
  auto finding = judge_metadata(input, run, checks);
  if (actual != nullptr) *actual = std::move(run);
  return finding;
}

std::optional<Finding> check_metadata_against_reference(Backend& backend, const MetadataInput& input) {
  const MetadataRun expected = reference_metadata(input);
  return check_metadata(backend, input, MetadataChecks{true, &expected});
}

TouchedRows touched_rows(const CacheLayout& compressed, const MetadataOutput& compressed_metadata,
                         const CacheLayout& ring, const MetadataOutput& ring_metadata) {
  const auto slots = [](const CacheLayout& l, const MetadataOutput& m) {
    std::vector<int64_t> s;
    for (int64_t slot : m.slot_mapping)
      if (slot >= 0 && !l.past_the_cache(slot)) s.push_back(slot);
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    return s;
  };
  return TouchedRows{slots(compressed, compressed_metadata), slots(ring, ring_metadata)};
}

std::optional<Finding> compare_whole_caches(const StepCaches& expected, const StepCaches& actual,
                                            const FloatComparator* floats) {
  if (auto f = compare_cache("compressed", expected.compressed, actual.compressed, floats)) return f;
  return compare_cache("ring", expected.ring, actual.ring, nullptr);
}

namespace {

// The metadata a kernel built for its own step (StepOutput::step_metadata): both groups, equal to
// the reference's, so a step never passes on metadata nothing judged (SPEC 2, 7.4).
std::optional<Finding> judge_step_metadata(const StepInput& input, const std::vector<MetadataOutput>& own) {
  if (own.empty()) return std::nullopt;
  const MetadataInput groups[2] = {input.compressed_metadata_input(), input.ring_metadata_input()};
  if (own.size() != 2)
    return make_finding(Check::kStepMetadataDifferential, "step_metadata", -1, "2 groups", std::to_string(own.size()),
                        "the kernel gave its step update " + std::to_string(own.size()) +
                            " metadata groups; the step has 2 (compressed, ring)");
  for (int g = 0; g < 2; ++g) {
    const MetadataRun expected = reference_metadata(groups[g]);
    if (expected.status != Status::kOk) continue;  // the step's own status check reports it
    if (auto m = compare_metadata(groups[g], expected.output, own[static_cast<size_t>(g)]))
      return make_finding(Check::kStepMetadataDifferential, m->field, m->index, m->expected, m->actual,
                          std::string("the ") + to_string(groups[g].cache.kind) +
                              " metadata the kernel gave its step update differs from the contract: " +
                              m->to_string());
  }
  return std::nullopt;
}

}  // namespace

StepRun run_step_update(Backend& backend, const StepInput& input, const StepCaches& caches) {
  StepRun run;
  run.caches = caches;
  run_step_update_in_place(backend, input, &run);
  return run;
}

void run_step_update_in_place(Backend& backend, const StepInput& input, StepRun* run) {
  run->output = make_poisoned_step_output(input);
  run->status = backend.step_update(input, &run->caches, &run->output, &run->error);
  if (run->status == Status::kOk)
    for (MetadataOutput& m : run->output.step_metadata) apply_deviations(backend.deviations(), &m);
}

std::optional<Finding> judge_step_update(const StepInput& input, const StepCaches& before, const StepRun& actual,
                                         const StepChecks& checks) {
  const StepRun* expected = checks.expected;
  if (expected != nullptr) {
    if (auto f = judge_status(kStepUpdateChecks, expected->status, expected->error, actual.status, actual.error)) return f;
    if (expected->status != Status::kOk) return untouched_step(input, before, actual);
  } else if (actual.status != Status::kOk) {
    return judge_status(kStepUpdateChecks, Status::kOk, Error{}, actual.status, actual.error);
  }
  if (auto f = judge_step_metadata(input, actual.output.step_metadata)) return f;
  const StepStatus want = expected != nullptr ? expected->output.step_status : StepStatus::kOk;
  if (actual.output.step_status != want)
    return make_finding(
        Check::kStepStatus, "step_status", -1, to_string(want), to_string(actual.output.step_status),
        std::string("the step reported ") + to_string(actual.output.step_status) + ", expected " + to_string(want));
  if (expected != nullptr) {
    if (checks.statistics != nullptr && checks.compressed_metadata != nullptr &&
        expected->caches.compressed.bytes.size() == actual.caches.compressed.bytes.size())
      tally_compressed(expected->caches.compressed, actual.caches.compressed, *checks.compressed_metadata,
                       checks.statistics->compressed);
    const TouchedRows* touched = checks.touched;
    if (auto f = compare_cache("compressed", expected->caches.compressed, actual.caches.compressed, checks.floats,
                               touched != nullptr ? &touched->compressed : nullptr))
      return f;
    if (auto f = compare_cache("ring", expected->caches.ring, actual.caches.ring, nullptr,
                               touched != nullptr ? &touched->ring : nullptr))
      return f;
  }
  // With touched rows, every row compared is named: the rest waits for compare_whole_caches.
  if (checks.compressed_metadata != nullptr && checks.ring_metadata != nullptr && checks.touched == nullptr) {
    if (auto f = unnamed_write("compressed", before.compressed, actual.caches.compressed, *checks.compressed_metadata))
      return f;
    if (auto f = unnamed_write("ring", before.ring, actual.caches.ring, *checks.ring_metadata)) return f;
  }
  if (checks.oracle != nullptr)
    if (auto v = checks.oracle->check_queries(input, actual.output.q_out))
      return make_finding(Check::kQPath, "q_out", -1, "", "",
                          to_string(*v) + (checks.floats != nullptr && !checks.floats->tolerance().exact()
                                               ? " (beyond " + checks.floats->tolerance().to_string() + ")"
                                               : ""));
  if (expected != nullptr) return compare_q_out(input, expected->output, actual.output, checks);
  return std::nullopt;
}

}  // namespace qsa::engine
