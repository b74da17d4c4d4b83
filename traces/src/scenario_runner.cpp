#include "qsa/traces/scenario_runner.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <set>

#include "qsa/invariants.hpp"
#include "qsa/reference/backend.hpp"
#include "qsa/reference/metadata.hpp"
#include "qsa/traces/compare.hpp"
#include "qsa/traces/json_reader.hpp"

namespace qsa::traces {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

std::string hex_byte(uint8_t v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", v);
  return buf;
}

// The first differing byte of two caches, named by slot and element.
std::optional<std::string> first_cache_difference(const char* name, const CacheBuffer& expected,
                                                  const CacheBuffer& actual) {
  if (expected.bytes.size() != actual.bytes.size()) return std::string(name) + " cache changed size";
  const CacheLayout& l = expected.layout;
  int64_t count = 0;
  int64_t first = -1;
  for (size_t i = 0; i < expected.bytes.size(); ++i) {
    if (expected.bytes[i] == actual.bytes[i]) continue;
    if (first < 0) first = static_cast<int64_t>(i);
    ++count;
  }
  if (first < 0) return std::nullopt;
  const int64_t element = first / l.element_bytes;
  const int64_t block = element / l.block_stride;
  const int64_t row = (element % l.block_stride) / l.row_stride;
  const int64_t column = (element % l.block_stride) % l.row_stride;
  return std::string(name) + " cache block " + str(block) + " row " + str(row) + " (slot " + str(block * l.rows + row) +
         ") byte " + str(column * l.element_bytes + first % l.element_bytes) + ": expected " +
         hex_byte(expected.bytes[first]) + ", actual " + hex_byte(actual.bytes[first]) + "; " + str(count) +
         " bytes differ";
}

// SPEC 7.5: every changed byte lies in a row whose slot is in `allowed`.
std::optional<std::string> unnamed_write(const char* name, const CacheBuffer& before, const CacheBuffer& after,
                                         const std::set<int64_t>& allowed) {
  const CacheLayout& l = before.layout;
  for (size_t i = 0; i < before.bytes.size(); ++i) {
    if (before.bytes[i] == after.bytes[i]) continue;
    const auto element = static_cast<int64_t>(i) / l.element_bytes;
    const int64_t block = element / l.block_stride;
    const int64_t row = (element % l.block_stride) / l.row_stride;
    const int64_t column = (element % l.block_stride) % l.row_stride;
    const int64_t slot = block * l.rows + row;
    if (row < l.rows && column < l.width && allowed.count(slot) != 0) continue;
    return std::string(name) + " cache block " + str(block) + " row " + str(row) + " (slot " + str(slot) +
           ", element " + str(column) + ") changed but no row of this step names that slot";
  }
  return std::nullopt;
}

std::set<int64_t> written_slots(const MetadataOutput& metadata, const CacheLayout& layout) {
  std::set<int64_t> slots;
  for (int64_t s : metadata.slot_mapping)
    if (s >= 0 && !layout.past_the_cache(s)) slots.insert(s);
  return slots;
}

MetadataInput passthrough_input(const StepInput& in) {
  MetadataInput m;
  m.batch = in.batch;
  m.cache.kind = CacheKind::kPassthrough;
  m.block_table = in.block_table;
  return m;
}

}  // namespace

std::string to_string(const RunFailure& f) { return "step " + str(f.step) + ": " + f.check + ": " + f.message; }

StepCaches make_poisoned_caches(const ScenarioConfig& config) {
  StepCaches caches;
  caches.ring.layout = CacheLayout::dense(config.num_ring_blocks, config.ring_capacity,
                                          ring_row_width(config.head_dim, config.mrope), 2);
  caches.ring.bytes.assign(static_cast<size_t>(caches.ring.layout.size_bytes()), kPoisonByte);
  caches.compressed.layout = CacheLayout::dense(config.num_compressed_blocks, config.storage_block_size(),
                                                config.head_dim, element_bytes(config.store_dtype));
  caches.compressed.bytes.assign(static_cast<size_t>(caches.compressed.layout.size_bytes()), kPoisonByte);
  return caches;
}

ScenarioRunner::ScenarioRunner(const ScenarioConfig& config, Backend& backend, RunOptions options)
    : state_(config),
      oracle_(state_.step_config()),
      backend_(backend),
      reference_(std::make_unique<reference::ReferenceBackend>()),
      options_(options),
      caches_(make_poisoned_caches(config)),
      reference_caches_(caches_) {
  if (backend_.name() == "reference") options_.differential = false;
}

RunFailure ScenarioRunner::failure(const std::string& check, const std::string& message) const {
  return RunFailure{index_, check, message, false};
}

std::optional<RunFailure> ScenarioRunner::check_metadata(const StepInput& input, const StepRecord& record) {
  const MetadataInput inputs[3] = {input.compressed_metadata_input(), input.ring_metadata_input(),
                                   passthrough_input(input)};
  for (int kind_index = 0; kind_index < 3; ++kind_index) {
    const MetadataInput& in = inputs[kind_index];
    const std::string kind = to_string(in.cache.kind);
    MetadataOutput out = make_poisoned_metadata_output(in);
    Error error;
    const Status status = backend_.build_metadata(in, &out, &error);
    if (status != Status::kOk)
      return failure("metadata-status",
                     kind + ": " + std::string(qsa::to_string(status)) + " " + qsa::to_string(error));
    if (auto v = check_metadata_invariants(in, out))
      return failure("7.4-metadata-invariant", kind + ": " + qsa::to_string(*v));
    if (options_.differential) {
      MetadataOutput expected;
      if (reference::build_metadata(in, &expected, &error) != Status::kOk)
        return failure("reference", qsa::to_string(error));
      if (auto m = compare_metadata(in, expected, out))
        return failure("metadata-differential", kind + ": " + m->to_string());
    }
    metadata_[kind_index] = std::move(out);
  }
  const MetadataOutput& compressed_metadata = metadata_[0];
  // SPEC 7.3: a committed query sees no group beyond its request's committed length.
  int64_t t = 0;
  const int64_t c = input.config.compress_ratio;
  for (const ChunkRecord& chunk : record.chunks) {
    for (int64_t o = 0; o < chunk.length; ++o, ++t) {
      const int64_t committed_after = chunk.start + chunk.accepted;
      if (o < chunk.accepted && compressed_metadata.visible_blocks[t] > committed_after / c)
        return failure("7.3-stale-rows-visible", "row " + str(t) + " (request " + str(chunk.request) + ", position " +
                                                     str(chunk.start + o) + ") sees " +
                                                     str(compressed_metadata.visible_blocks[t]) + " groups, but only " +
                                                     str(committed_after / c) + " are complete after verification");
    }
  }
  return std::nullopt;
}

std::optional<RunFailure> ScenarioRunner::check_step_update(const StepInput& input) {
  const StepCaches before = options_.check_writes ? caches_ : StepCaches{};
  StepOutput out = make_poisoned_step_output(input);
  Error error;
  const Status status = backend_.step_update(input, &caches_, &out, &error);
  if (status == Status::kNotImplemented) {
    step_update_supported_ = false;
    return std::nullopt;
  }
  if (status != Status::kOk)
    return failure("step-update-status", std::string(qsa::to_string(status)) + " " + qsa::to_string(error));
  if (out.step_status != StepStatus::kOk)
    return failure("step-status",
                   std::string("the step reported ") + qsa::to_string(out.step_status) + " on a valid scenario");

  if (options_.differential) {
    StepOutput expected = make_poisoned_step_output(input);
    if (reference_->step_update(input, &reference_caches_, &expected, &error) != Status::kOk)
      return failure("reference", qsa::to_string(error));
    if (auto d = first_cache_difference("compressed", reference_caches_.compressed, caches_.compressed))
      return failure("step-differential", *d);
    if (auto d = first_cache_difference("ring", reference_caches_.ring, caches_.ring))
      return failure("step-differential", *d);
  }
  if (options_.check_writes) {
    MetadataOutput compressed;
    MetadataOutput ring;
    if (reference::build_metadata(input.compressed_metadata_input(), &compressed, &error) != Status::kOk ||
        reference::build_metadata(input.ring_metadata_input(), &ring, &error) != Status::kOk)
      return failure("reference", qsa::to_string(error));
    if (auto w = unnamed_write("compressed", before.compressed, caches_.compressed,
                               written_slots(compressed, caches_.compressed.layout)))
      return failure("7.5-writes", *w);
    if (auto w = unnamed_write("ring", before.ring, caches_.ring, written_slots(ring, caches_.ring.layout)))
      return failure("7.5-writes", *w);
  }
  if (auto v = oracle_.check_queries(input, out.q_out)) return failure("q-path", qsa::to_string(*v));
  output_ = std::move(out);
  return std::nullopt;
}

std::optional<RunFailure> ScenarioRunner::check_digest(const StepInput& input, bool update_ran) {
  digest_ = StepDigest{};
  static const char* const kMetadataNames[3] = {"metadata.compressed", "metadata.ring", "metadata.passthrough"};
  const MetadataInput inputs[3] = {input.compressed_metadata_input(), input.ring_metadata_input(),
                                   passthrough_input(input)};
  for (int k = 0; k < 3; ++k) {
    MetadataOutput out = metadata_[k];
    if (!options_.check_metadata) {  // the checks did not build it: ask the backend now
      out = make_poisoned_metadata_output(inputs[k]);
      Error error;
      if (backend_.build_metadata(inputs[k], &out, &error) != Status::kOk)
        return failure("metadata-status", qsa::to_string(error));
    }
    digest_.set(kMetadataNames[k], digest_metadata(out));
  }
  if (update_ran) {
    // The rows this step names, by the contract's metadata (the reference builder), not the backend's.
    MetadataOutput compressed;
    MetadataOutput ring;
    Error error;
    if (reference::build_metadata(inputs[0], &compressed, &error) != Status::kOk ||
        reference::build_metadata(inputs[1], &ring, &error) != Status::kOk)
      return failure("reference", qsa::to_string(error));
    digest_.set("q_out", digest_q_out(output_.q_out));
    digest_.set("cache.compressed", digest_cache_rows(caches_.compressed, compressed.slot_mapping));
    digest_.set("cache.ring", digest_cache_rows(caches_.ring, ring.slot_mapping));
    digest_.set("step_status", digest_step_status(output_.step_status));
  }
  const std::vector<StepDigest>* expected = options_.expected_digests;
  if (expected == nullptr) return std::nullopt;
  if (static_cast<size_t>(index_) >= expected->size())
    return failure("digest", "the file records " + str(static_cast<int64_t>(expected->size())) +
                                 " digests, this is step " + str(index_));
  if (auto difference = compare_digests((*expected)[static_cast<size_t>(index_)], digest_))
    return failure("digest", "output " + *difference +
                                 " (digest recorded from the reference; the outputs listed before it agree)");
  return std::nullopt;
}

std::optional<RunFailure> ScenarioRunner::check_oracle(const StepRecord& record,
                                                       const std::map<int64_t, int64_t>& committed_before) {
  const bool sweep = options_.sweep_every > 0 && (index_ + 1) % options_.sweep_every == 0;
  const int64_t c = state_.config().compress_ratio;
  for (const auto& [id, ledger] : state_.requests()) {
    const auto before = committed_before.find(id);
    const bool touched = std::any_of(record.chunks.begin(), record.chunks.end(),
                                     [id = id](const ChunkRecord& ch) { return ch.request == id; });
    if (!touched && !sweep) continue;
    const CommittedStream stream = state_.committed_stream(ledger);
    const int64_t first_group = sweep || before == committed_before.end() ? 0 : before->second / c;
    if (auto v = oracle_.check_groups(stream, caches_.compressed, first_group))
      return failure(v->invariant, "request " + str(id) + ": " + v->message);
    if (auto v = oracle_.check_open_group(stream, caches_.ring))
      return failure(v->invariant, "request " + str(id) + ": " + v->message);
  }
  return std::nullopt;
}

std::optional<RunFailure> ScenarioRunner::step(const StepRecord& record) {
  StepInput input;
  try {
    input = state_.step_input(record, index_);
  } catch (const InputError& e) {
    RunFailure f = failure("scenario", qsa::to_string(e.error()));
    f.invalid_scenario = true;
    return f;
  }
  if (options_.check_metadata)
    if (auto f = check_metadata(input, record)) return f;
  const bool update = options_.run_step_update && step_update_supported_;
  if (update)
    if (auto f = check_step_update(input)) return f;

  std::map<int64_t, int64_t> committed_before;
  for (const auto& [id, ledger] : state_.requests()) committed_before[id] = ledger.committed;
  state_.apply(record, index_);
  const bool update_ran = update && step_update_supported_;
  if (update_ran)
    if (auto f = check_oracle(record, committed_before)) return f;
  if (options_.compute_digests || options_.expected_digests != nullptr)
    if (auto f = check_digest(input, update_ran)) return f;
  ++index_;
  return std::nullopt;
}

std::optional<RunFailure> run_scenario(const Scenario& scenario, Backend& backend, const RunOptions& options) {
  ScenarioRunner runner(scenario.config, backend, options);
  for (const StepRecord& record : scenario.steps)
    if (auto f = runner.step(record)) return f;
  return std::nullopt;
}

}  // namespace qsa::traces
