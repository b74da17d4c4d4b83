#include "qsa/engine/scenario_runner.hpp"

#include <algorithm>
#include <limits>

#include "qsa/engine/check_engine.hpp"
#include "qsa/engine/step_loop.hpp"
#include "qsa/input_fields.hpp"
#include "qsa/reference/reference_backend.hpp"
#include "qsa/traces/interleaved_calls.hpp"
#include "qsa/traces/invalid_batch.hpp"
#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/rng.hpp"
#include "qsa/validate.hpp"

namespace qsa::engine {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

RunFailure from_finding(int64_t step, const std::string& prefix, const Finding& f) {
  return RunFailure{step, f.check, prefix + f.message, false, f.field, f.index};
}

// Copies the rows `slots` of one cache from `from` into `to` (same layout).
void copy_rows(const std::vector<int64_t>& slots, const CacheBuffer& from, CacheBuffer& to) {
  const CacheLayout& l = from.layout;
  const int64_t row_bytes = l.width * l.element_bytes;
  for (int64_t slot : slots) {
    const int64_t at = l.byte_offset(slot, 0);
    std::copy(from.bytes.begin() + at, from.bytes.begin() + at + row_bytes, to.bytes.begin() + at);
  }
}

// The rows `slots` of `cache`, written by the host (the reference's prefill): journaled.
void note_rows(const std::vector<int64_t>& slots, CacheBuffer& cache) {
  const CacheLayout& l = cache.layout;
  for (int64_t slot : slots)
    note_host_edit(cache, static_cast<size_t>(l.byte_offset(slot, 0)), static_cast<size_t>(l.width * l.element_bytes));
}

// Whether every range in `writes` lies inside the rows `slots` of `layout` (sorted slots).
bool inside_rows(const std::vector<ByteRange>& writes, const CacheLayout& l, const std::vector<int64_t>& slots) {
  const int64_t row_bytes = l.width * l.element_bytes;
  for (const ByteRange& w : writes) {
    for (size_t at = w.first; at < w.second;) {
      const CachePlace p = cache_place(l, static_cast<int64_t>(at));
      if (p.row >= l.rows || p.column >= l.width || !std::binary_search(slots.begin(), slots.end(), p.slot))
        return false;
      at = static_cast<size_t>(l.byte_offset(p.slot, 0) + row_bytes);
    }
  }
  return true;
}

MetadataInput passthrough_input(const StepInput& in) {
  MetadataInput m;
  m.batch = in.batch;
  m.cache.kind = CacheKind::kPassthrough;
  m.block_table = in.block_table;
  return m;
}

}  // namespace

std::string to_string(const RunFailure& f) {
  std::string where = f.field.empty() ? "" : " " + f.field;
  if (!f.field.empty() && f.index >= 0) where += "[" + str(f.index) + "]";
  return "step " + str(f.step) + ": " + f.check.to_string() + where + ": " + f.message;
}

void ScenarioRunner::poison_new_blocks(const BlockTable& table, BlockPoison& poison, CacheBuffer& backend,
                                       CacheBytes& expected) {
  const int64_t block_bytes = poison.layout.block_stride * poison.layout.element_bytes;
  for (int32_t block : table.storage) {
    if (block < 0 || block >= poison.layout.num_blocks || poison.done[static_cast<size_t>(block)]) continue;
    poison.done[static_cast<size_t>(block)] = true;
    // XOR, not a store: both sides read zero here unless a stray write reached the block before
    // any step named it, and XOR keeps that difference for the next whole comparison to see.
    for (CacheBytes* bytes : {&backend.bytes, &expected}) {
      uint8_t* p = bytes->data() + block * block_bytes;
      for (int64_t i = 0; i < block_bytes; ++i) p[i] ^= kPoisonByte;
    }
    note_host_edit(backend, static_cast<size_t>(block * block_bytes), static_cast<size_t>(block_bytes));
  }
}

ScenarioRunner::ScenarioRunner(const traces::ScenarioConfig& config, Backend& backend, RunOptions options)
    : state_(config),
      prefix_hits_(config),
      oracle_(state_.step_config()),
      backend_(backend),
      reference_(std::make_unique<reference::ReferenceBackend>()),
      options_(options),
      caches_(traces::make_caches(config, 0)),
      reference_caches_(caches_),
      backend_is_reference_(backend_.name() == "reference"),
      compare_every_step_(backend_.outside_kernel()) {
  // The runner journals every write it makes to the backend's caches (poisoned blocks, a prefill's
  // rows), so a backend with its own copy moves only those (docs/decisions.md "Cache journal").
  caches_.compressed.journal.journaled = true;
  caches_.ring.journal.journaled = true;
  compressed_poison_.layout = caches_.compressed.layout;
  compressed_poison_.done.assign(static_cast<size_t>(caches_.compressed.layout.num_blocks), false);
  ring_poison_.layout = caches_.ring.layout;
  ring_poison_.done.assign(static_cast<size_t>(caches_.ring.layout.num_blocks), false);
  if (backend_is_reference_)
    options_.differential = false;
  else if (!options_.float_tolerance.exact())
    options_.differential = true;
  floats_ = make_float_comparator(options_.float_tolerance);
  if (!options_.float_tolerance.exact())
    oracle_.set_row_accepts(
        [floats = floats_.get()](const uint8_t* expected, const uint8_t* actual, int64_t width, int element_bytes) {
          return floats->accepts_row(expected, actual, width, element_bytes);
        });
}

RunFailure ScenarioRunner::failure(CheckId check, const std::string& message) const {
  return RunFailure{index_, std::move(check), message, false, "", -1};
}

const MetadataRun& ScenarioRunner::expected_metadata(int kind_index) {
  if (!expected_ready_[kind_index]) {
    expected_[kind_index] = reference_metadata(inputs_[kind_index]);
    expected_ready_[kind_index] = true;
  }
  return expected_[kind_index];
}

std::optional<RunFailure> ScenarioRunner::check_metadata(const traces::StepRecord& record) {
  for (int kind_index = 0; kind_index < 3; ++kind_index) {
    const MetadataInput& in = inputs_[kind_index];
    MetadataRun run = run_metadata(backend_, in);
    if (is_declined(run.status, run.error)) {  // outside the backend's declared capabilities: not run
      declined_.insert(std::string("metadata of the ") + to_string(in.cache.kind) + " kind: " + run.error.message);
      metadata_[kind_index] = MetadataOutput{};
      continue;
    }
    MetadataChecks checks;
    if (options_.differential) checks.expected = &expected_metadata(kind_index);
    if (auto f = judge_metadata(in, run, checks))
      return from_finding(index_, std::string(to_string(in.cache.kind)) + ": ", *f);
    // The reference's own answer is the expectation; the write check and the digests use the
    // compressed and ring kinds only.
    if (backend_is_reference_ && kind_index < 2 && !expected_ready_[kind_index]) {
      expected_[kind_index] = run;
      expected_ready_[kind_index] = true;
    }
    metadata_[kind_index] = std::move(run.output);
  }
  const StepInput& input = input_;
  const MetadataOutput& compressed_metadata = metadata_[0];
  if (compressed_metadata.visible_blocks.size() != static_cast<size_t>(input.num_tokens())) return std::nullopt;
  // SPEC 7.3: a committed query sees no group beyond its request's committed length.
  int64_t t = 0;
  const int64_t c = input.config.compress_ratio;
  for (const traces::ChunkRecord& chunk : record.chunks) {
    for (int64_t o = 0; o < chunk.length; ++o, ++t) {
      const int64_t committed_after = chunk.start + chunk.accepted;
      if (o < chunk.accepted && compressed_metadata.visible_blocks[t] > committed_after / c)
        return failure(Check::kStaleRowsVisible, "row " + str(t) + " (request " + str(chunk.request) + ", position " +
                                                     str(chunk.start + o) + ") sees " +
                                                     str(compressed_metadata.visible_blocks[t]) + " groups, but only " +
                                                     str(committed_after / c) + " are complete after verification");
    }
  }
  return std::nullopt;
}

// SPEC 1.4: a rejected call writes nothing, and an instance that keeps state between calls (a
// device status word, buffers sized by the last call) must answer the next valid step as a fresh
// instance would. Content version 3 scenarios call the backend, before steps 0, 16, 32, ...
// (traces/interleaved_calls.hpp), on the same instance and caches with that step's input one rule
// broken (drawn from the seed and the step; traces/invalid_batch.hpp); the error must be the
// reference's. The valid call that follows is
// then judged as every step is, against the reference's fresh answer and caches, so whatever the
// rejected call left behind shows there (or at the next whole-cache comparison).
std::optional<RunFailure> ScenarioRunner::check_rejected_call(StepCaches* caches) {
  const traces::ScenarioConfig& config = state_.config();
  if (traces::call_before_step(config, index_) != traces::CallBeforeStep::kRejected) return std::nullopt;
  StepInput broken = input_;
  const Rule rule =
      traces::break_step_rule(traces::hash_words(config.seed, kRejectedCallStream, static_cast<uint64_t>(index_)), &broken);
  if (rule == Rule::kCount) return std::nullopt;
  Error expected;
  if (validate_step(broken, *caches, &expected) != Status::kInvalidInput)
    return failure(Check::kReference, std::string("a step input with ") + rule_info(rule).field + " / " +
                                    rule_info(rule).rule + " broken passes validate_step()");
  StepOutput output = make_poisoned_step_output(input_);
  Error error;
  const Status status = backend_.step_update(broken, caches, &output, &error);
  if (status == Status::kNotImplemented) return std::nullopt;  // judged by the valid call
  const std::string what = "the call before step " + str(index_) + ", with " + qsa::to_string(expected) +
                           " broken (the reference rejects it)";
  if (status != Status::kInvalidInput)
    return failure(Check::kStepUpdateStatus, what + ", answered " + qsa::to_string(status));
  if (error != expected) return failure(Check::kStepUpdateError, what + ", reported " + qsa::to_string(error));
  return std::nullopt;
}

// Issue 55's call sequences: a call that ends in a step status (position-out-of-range), or one
// of another configuration (buffers of another shape, the metadata of all three kinds first), on
// the same instance and on caches of its own, judged against the reference's answer from the same
// caches; the valid step that follows is judged as every step is, against the reference's fresh
// answer, so whatever the call left in the instance (a status word, a scratch buffer sized or
// filled by it) shows there. A call the backend's declared limits exclude (Backend::excludes: a
// plugin's or worker's capabilities and constraints) is sent all the same and must be declined
// (is_declined, nothing written): a decline is a call that ends too, and what it left in the
// instance shows at the same valid step. A call declined without being excluded is not judged.
std::optional<RunFailure> ScenarioRunner::check_interleaved_call() {
  const traces::ScenarioConfig& config = state_.config();
  const traces::CallBeforeStep kind = traces::call_before_step(config, index_);
  const bool status_call = kind == traces::CallBeforeStep::kStepStatus;
  if ((!status_call && kind != traces::CallBeforeStep::kOtherConfiguration) || backend_is_reference_ ||
      !options_.calls_between_steps)
    return std::nullopt;
  if (!calls_) calls_ = std::make_unique<traces::InterleavedCalls>(config);
  traces::InterleavedStep call =
      status_call ? calls_->step_status_call(index_) : calls_->other_configuration_call(index_);
  const std::string what = std::string(status_call ? "the step-status call" : "the other-configuration call") +
                           " before step " + str(index_);
  call_before_ = what;
  bool declined_call = false;  // some part of the call was one the declared limits exclude
  if (!status_call && options_.check_metadata) {
    const MetadataInput inputs[3] = {call.input.compressed_metadata_input(), call.input.ring_metadata_input(),
                                     passthrough_input(call.input)};
    for (const MetadataInput& in : inputs) {
      const MetadataRun run = run_metadata(backend_, in);
      if (auto why = backend_.excludes(in)) {
        declined_call = true;
        if (auto f = judge_declined(what + ", " + to_string(in.cache.kind) + " metadata", *why, run.status, run.error,
                                    Check::kMetadataStatus, run_untouched(in, run)))
          return f;
        continue;
      }
      if (is_declined(run.status, run.error)) continue;
      const MetadataRun expected = reference_metadata(in);
      MetadataChecks checks;
      checks.expected = &expected;
      if (auto f = judge_metadata(in, run, checks))
        return from_finding(index_, what + ", " + to_string(in.cache.kind) + " metadata: ", *f);
    }
  }
  if (options_.run_step_update && step_update_supported_) {
    if (auto why = backend_.excludes(call.input, call.caches)) {
      declined_call = true;
      const StepCaches before = call.caches;
      StepRun run;
      run.caches = std::move(call.caches);
      run.output = make_poisoned_step_output(call.input);
      run.status = backend_.step_update(call.input, &run.caches, &run.output, &run.error);
      const bool untouched = run.caches.compressed.bytes == before.compressed.bytes &&
                             run.caches.ring.bytes == before.ring.bytes &&
                             run.output.q_out == make_poisoned_step_output(call.input).q_out;
      if (auto f =
              judge_declined(what + ", step update", *why, run.status, run.error, Check::kStepUpdateStatus, untouched))
        return f;
    } else {
      note_declined_call(what, declined_call);
      return check_interleaved_step(what, std::move(call));
    }
  }
  note_declined_call(what, declined_call);
  return std::nullopt;
}

void ScenarioRunner::note_declined_call(const std::string& what, bool declined) {
  if (!declined) return;
  call_before_ = what + ", declined (outside the backend's declared limits)";
  if (options_.input_space) options_.input_space->add_declined_call();
}

// A call the backend's declared limits exclude (`why`) must come back declined (is_declined), with
// nothing written: any other answer is the backend's, judged as a status the reference's
// contract does not allow there (check `status_check`: metadata-status, step-update-status).
std::optional<RunFailure> ScenarioRunner::judge_declined(const std::string& what, const std::string& why, Status status,
                                                         const Error& error, CheckId status_check,
                                                         bool untouched) const {
  const std::string call = what + " (its declared limits exclude it: " + why + ")";
  if (is_worker_fault(status, error)) {  // a crash stays a crash (check_engine.cpp, judge_status)
    RunFailure f =
        failure(CheckId::fault(status_check == Check::kMetadataStatus ? Check::kMetadataFault : Check::kStepUpdateFault,
                               error.rule),
                call + ": " + qsa::to_string(error));
    f.field = error.field;
    return f;
  }
  if (!is_declined(status, error))
    return failure(status_check, call + ", answered " + qsa::to_string(status) +
                                     (status == Status::kOk ? "" : ": " + qsa::to_string(error)) + ", not a decline (" +
                                     kMissingCapability + ")");
  if (!untouched)
    return failure(status_check == Check::kMetadataStatus ? Check::kMetadataUntouched : Check::kStepUpdateUntouched,
                   call + ", declined but wrote its outputs or caches");
  return std::nullopt;
}

bool ScenarioRunner::run_untouched(const MetadataInput& in, const MetadataRun& run) {
  const MetadataOutput poisoned = make_poisoned_metadata_output(in);
  return run.output.token_to_req == poisoned.token_to_req &&
         run.output.logical_positions == poisoned.logical_positions &&
         run.output.visible_blocks == poisoned.visible_blocks && run.output.slot_mapping == poisoned.slot_mapping &&
         run.output.k_work_metadata == poisoned.k_work_metadata;
}

std::optional<RunFailure> ScenarioRunner::check_interleaved_step(const std::string& what,
                                                                 traces::InterleavedStep call) {
  StepRun run;
  run.caches = call.caches;
  run_step_update_in_place(backend_, call.input, &run);
  if (run.status == Status::kNotImplemented) return std::nullopt;
  const StepCaches before = call.caches;
  StepRun expected;
  expected.caches = std::move(call.caches);
  expected.output = make_poisoned_step_output(call.input);
  expected.status = reference_->step_update(call.input, &expected.caches, &expected.output, &expected.error);
  if (expected.status != Status::kOk) return failure(Check::kReference, what + ": " + qsa::to_string(expected.error));
  StepChecks checks;
  checks.expected = &expected;
  checks.floats = floats_.get();
  if (auto f = judge_step_update(call.input, before, run, checks)) return from_finding(index_, what + ": ", *f);
  return std::nullopt;
}

std::optional<RunFailure> ScenarioRunner::check_step_update() {
  const StepInput& input = input_;
  // With touched rows the checks compare only the rows this step may write (the reference's
  // metadata names them), the backend steps its own caches in place, and the whole caches are
  // compared every full_compare_every steps (compare_whole_caches()). Without (every step a full
  // comparison, or no metadata to name the rows): a copy of the caches before the step is kept for
  // the write check, and both whole caches are compared.
  std::optional<TouchedRows> touched;
  if (options_.full_compare_every != 1 && (options_.differential || options_.check_writes) &&
      expected_metadata(0).status == Status::kOk && expected_metadata(1).status == Status::kOk)
    touched = touched_rows(caches_.compressed.layout, expected_[0].output, caches_.ring.layout, expected_[1].output);
  StepRun run;
  if (touched)
    run.caches = std::move(caches_);
  else
    run.caches = caches_;  // caches_ stays the state before the step until the run is judged
  if (auto f = check_rejected_call(&run.caches)) {
    if (touched) caches_ = std::move(run.caches);
    return f;
  }
  // What the backend reports it changed is this call's alone. (A rejected call ran no kernel: the
  // adapters validate first, and any other answer is a finding that ends the run.)
  run.caches.compressed.journal.kernel_writes.reset();
  run.caches.ring.journal.kernel_writes.reset();
  run_step_update_in_place(backend_, input, &run);
  if (run.status == Status::kNotImplemented) {
    if (touched) caches_ = std::move(run.caches);
    step_update_supported_ = false;
    if (is_declined(run.status, run.error)) declined_.insert("the step update: " + run.error.message);
    return std::nullopt;
  }
  StepRun expected;
  StepChecks checks;
  checks.oracle = &oracle_;
  checks.floats = floats_.get();
  checks.touched = touched ? &*touched : nullptr;
  if (options_.differential) {
    expected.caches = std::move(reference_caches_);
    expected.output = make_poisoned_step_output(input);
    expected.status = reference_->step_update(input, &expected.caches, &expected.output, &expected.error);
    if (expected.status != Status::kOk) {
      reference_caches_ = std::move(expected.caches);
      if (touched) caches_ = std::move(run.caches);
      return failure(Check::kReference, qsa::to_string(expected.error));
    }
    checks.expected = &expected;
    checks.statistics = options_.float_statistics;
  }
  if (options_.check_writes) {
    for (int k = 0; k < 2; ++k)
      if (expected_metadata(k).status != Status::kOk) {
        if (touched) caches_ = std::move(run.caches);
        return failure(Check::kReference, qsa::to_string(expected_[k].error));
      }
    checks.compressed_metadata = &expected_metadata(0).output;
    checks.ring_metadata = &expected_metadata(1).output;
  }
  // In place, the state before the step is the expected one (the reference's is unchanged on the
  // error for which it is asked; the write check's copy is the backend's state before the step).
  const StepCaches& before = !touched ? caches_ : options_.differential ? expected.caches : reference_caches_;
  auto finding = judge_step_update(input, before, run, checks);
  if (options_.differential)
    reference_caches_ = std::move(expected.caches);  // the reference's state, for the next step
  caches_ = std::move(run.caches);
  if (touched && !options_.differential) {
    // The write check's copy follows the backend in the rows this step may write, and only there.
    copy_rows(touched->compressed, caches_.compressed, reference_caches_.compressed);
    copy_rows(touched->ring, caches_.ring, reference_caches_.ring);
  }
  if (finding) return from_finding(index_, "", *finding);
  output_ = std::move(run.output);
  if (touched) {
    // SPEC 7.5 at the cost of the step's rows: a backend that compared its whole copy of the caches
    // with the state before the step reports every range the step changed; when all lie in the rows
    // the step may write, nothing else changed and the whole comparison has nothing to find.
    const CacheJournal& cj = caches_.compressed.journal;
    const CacheJournal& rj = caches_.ring.journal;
    const bool verified = compare_every_step_ && cj.kernel_writes && rj.kernel_writes &&
                          inside_rows(*cj.kernel_writes, caches_.compressed.layout, touched->compressed) &&
                          inside_rows(*rj.kernel_writes, caches_.ring.layout, touched->ring);
    // The periodic comparison still runs: a report that left a write out is caught there.
    rows_only_since_ = std::min(rows_only_since_, index_);
    if ((compare_every_step_ && !verified) ||
        (options_.full_compare_every > 0 && (index_ + 1) % options_.full_compare_every == 0))
      return compare_whole_caches(index_);
  }
  return std::nullopt;
}

std::optional<RunFailure> ScenarioRunner::compare_whole_caches(int64_t step) {
  if (rows_only_since_ > step) return std::nullopt;  // every step so far compared the whole caches
  const int64_t first = rows_only_since_;
  rows_only_since_ = std::numeric_limits<int64_t>::max();
  // The differential's caches are the reference's (compressed rows through the comparator); the
  // write check's are the backend's own, followed in the rows each step may write.
  auto f = engine::compare_whole_caches(reference_caches_, caches_, options_.differential ? floats_.get() : nullptr);
  if (!f) return std::nullopt;
  RunFailure failure = from_finding(step, "", *f);
  failure.check = Check::kWrites;
  const std::string when = compare_every_step_ ? "after every step: a kernel from outside"
                                               : "every " + str(options_.full_compare_every) + " steps and at the end";
  failure.message = "the full comparison after step " + str(step) + " (" + when + "): " + f->message + "; changed in steps " + str(first) + "-" + str(step) +
                    " outside the rows those steps may write (" +
                    (options_.differential ? "the reference's caches" : "the caches as those steps left them") + ")";
  return failure;
}

std::optional<RunFailure> ScenarioRunner::finish() { return compare_whole_caches(index_ - 1); }

std::optional<RunFailure> ScenarioRunner::check_digest(bool update_ran) {
  digest_ = traces::StepDigest{};
  static const char* const kMetadataNames[3] = {"metadata.compressed", "metadata.ring", "metadata.passthrough"};
  for (int k = 0; k < 3; ++k) {
    if (!options_.check_metadata) {  // the checks did not build it: ask the backend now
      MetadataRun run = run_metadata(backend_, inputs_[k]);
      if (run.status != Status::kOk) return failure(Check::kMetadataStatus, qsa::to_string(run.error));
      metadata_[k] = std::move(run.output);
    }
    digest_.set(kMetadataNames[k], traces::digest_metadata(metadata_[k]));
  }
  if (update_ran) {
    // The rows this step names, by the contract's metadata (the reference builder), not the backend's.
    for (int k = 0; k < 2; ++k)
      if (expected_metadata(k).status != Status::kOk) return failure(Check::kReference, qsa::to_string(expected_[k].error));
    const MetadataOutput& compressed = expected_[0].output;
    const MetadataOutput& ring = expected_[1].output;
    digest_.set("q_out", traces::digest_q_out(output_.q_out));
    digest_.set("cache.compressed", traces::digest_cache_rows(caches_.compressed, compressed.slot_mapping));
    digest_.set("cache.ring", traces::digest_cache_rows(caches_.ring, ring.slot_mapping));
    digest_.set("step_status", traces::digest_step_status(output_.step_status));
  }
  const std::vector<traces::StepDigest>* expected = options_.expected_digests;
  std::optional<traces::StepDigest> streamed = std::move(expected_next_);
  expected_next_.reset();
  // A backend that declined part of the step has no digest of it; the run reports what it left out.
  if ((expected == nullptr && !streamed) || !declined_.empty()) return std::nullopt;
  if (!streamed && static_cast<size_t>(index_) >= expected->size())
    return failure(Check::kDigest, "the file records " + str(static_cast<int64_t>(expected->size())) +
                                 " digests, this is step " + str(index_));
  traces::StepDigest want = streamed ? std::move(*streamed) : (*expected)[static_cast<size_t>(index_)];
  if (update_ran && !options_.float_tolerance.exact() && options_.differential)
    for (const char* name : {"q_out", "cache.compressed"})  // judged by the differential within the tolerance
      if (digest_.find(name)) want.set(name, *digest_.find(name));
  if (auto difference = traces::compare_digests(want, digest_))
    return failure(Check::kDigest, "output " + *difference +
                                 " (digest recorded from the reference; the outputs listed before it agree)");
  return std::nullopt;
}

std::optional<RunFailure> ScenarioRunner::check_oracle(const traces::StepRecord& record,
                                                       const std::map<int64_t, int64_t>& committed_before) {
  const bool sweep = options_.sweep_every > 0 && (index_ + 1) % options_.sweep_every == 0;
  const int64_t c = state_.config().compress_ratio;
  for (const auto& [id, ledger] : state_.requests()) {
    const auto before = committed_before.find(id);
    const bool touched = std::any_of(record.chunks.begin(), record.chunks.end(),
                                     [id = id](const traces::ChunkRecord& ch) { return ch.request == id; });
    if (!touched && !sweep) continue;
    const CommittedStream stream = state_.committed_stream(ledger);
    const int64_t first_group = sweep || before == committed_before.end() ? 0 : before->second / c;
    if (auto v = oracle_.check_groups(stream, caches_.compressed, first_group))
      return failure(
          Check::kCompressedRow,
          "request " + str(id) + ": " + v->message +
              (options_.float_tolerance.exact() ? "" : " (beyond " + options_.float_tolerance.to_string() + ")"));
    if (auto v = oracle_.check_open_group(stream, caches_.ring))
      return failure(Check::kRingOpenGroup, "request " + str(id) + ": " + v->message);
  }
  return std::nullopt;
}

std::optional<RunFailure> ScenarioRunner::prefill(const traces::StepRecord& record) {
  for (const traces::ChunkRecord& chunk : record.chunks) {
    if (!chunk.prefilled) continue;
    for (const StepInput& in : state_.prefill_inputs(chunk, index_)) {
      poison_new_blocks(in.block_table, compressed_poison_, caches_.compressed,
                        reference_caches_.compressed.bytes);
      poison_new_blocks(in.ring_block_table, ring_poison_, caches_.ring, reference_caches_.ring.bytes);
      // The reference writes the backend's caches, and the rows it wrote (those its metadata
      // names, SPEC 7.5) are copied into the expected ones: both start from the reference's state,
      // so every later check holds the backend to what it reads from them. (The rows a piece reads
      // back are the previous piece's, equal on both sides.)
      StepOutput output = make_poisoned_step_output(in);
      Error error;
      if (reference_->step_update(in, &caches_, &output, &error) != Status::kOk)
        return failure(Check::kReference, "the prefill of request " + str(chunk.request) + ": " + qsa::to_string(error));
      const MetadataRun compressed = reference_metadata(in.compressed_metadata_input());
      const MetadataRun ring = reference_metadata(in.ring_metadata_input());
      const TouchedRows rows =
          touched_rows(caches_.compressed.layout, compressed.output, caches_.ring.layout, ring.output);
      copy_rows(rows.compressed, caches_.compressed, reference_caches_.compressed);
      copy_rows(rows.ring, caches_.ring, reference_caches_.ring);
      note_rows(rows.compressed, caches_.compressed);
      note_rows(rows.ring, caches_.ring);
    }
  }
  return std::nullopt;
}

std::optional<RunFailure> ScenarioRunner::step(const traces::StepRecord& record) {
  try {
    input_ = state_.step_input(record, index_);
  } catch (const InputError& e) {
    RunFailure f = failure(Check::kScenario, qsa::to_string(e.error()));
    f.invalid_scenario = true;
    return f;
  }
  if (auto f = prefill(record)) return f;
  // Blocks are poisoned when a step first names them (nothing a correct run reads is unwritten),
  // in both the backend's caches and the expected ones; blocks never named cost no memory.
  poison_new_blocks(input_.block_table, compressed_poison_, caches_.compressed,
                    reference_caches_.compressed.bytes);
  poison_new_blocks(input_.ring_block_table, ring_poison_, caches_.ring, reference_caches_.ring.bytes);
  // The step's three metadata inputs; the reference's answer to each is built at most once.
  inputs_[0] = input_.compressed_metadata_input();
  inputs_[1] = input_.ring_metadata_input();
  inputs_[2] = passthrough_input(input_);
  if (options_.stop_at_exclusion)
    if (auto why = backend_.excludes(input_, caches_)) {
      excluded_ = *why;
      return std::nullopt;
    }
  if (options_.input_space) {
    options_.input_space->add_step(input_, caches_.compressed.layout, caches_.ring.layout, record.rejected_rows());
    options_.input_space->add_prefix_hits(prefix_hits_.add(record));
    options_.input_space->add_alternative_rows(state_.alternative_rows(record, index_));
    options_.input_space->add_call_before_step(state_.config(), index_);
  }
  for (bool& ready : expected_ready_) ready = false;
  call_before_.clear();
  if (auto f = check_interleaved_call()) return f;
  if (auto f = check_valid_step(record)) {
    // A failure right after a call on the same instance names the call: it may be what the
    // instance kept from it (the reference's answer is a fresh instance's).
    if (!call_before_.empty() && f->check != Check::kReference) f->message += " (this step follows " + call_before_ + ")";
    return f;
  }
  ++index_;
  return std::nullopt;
}

std::optional<RunFailure> ScenarioRunner::check_valid_step(const traces::StepRecord& record) {
  if (options_.check_metadata)
    if (auto f = check_metadata(record)) return f;
  const bool update = options_.run_step_update && step_update_supported_;
  if (update)
    if (auto f = check_step_update()) return f;

  std::map<int64_t, int64_t> committed_before;
  for (const auto& [id, ledger] : state_.requests()) committed_before[id] = ledger.committed;
  state_.apply(record, index_);
  const bool update_ran = update && step_update_supported_;
  if (update_ran)
    if (auto f = check_oracle(record, committed_before)) return f;
  if (options_.compute_digests || options_.expected_digests != nullptr || expected_next_)
    if (auto f = check_digest(update_ran)) return f;
  return std::nullopt;
}

std::optional<RunFailure> run_scenario(const traces::Scenario& scenario, Backend& backend, const RunOptions& options) {
  ScenarioRunner runner(scenario.config, backend, options);
  return run_steps(runner, scenario.steps).failure;
}

}  // namespace qsa::engine
