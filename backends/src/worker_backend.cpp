#include "qsa/backends/worker_backend.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <set>

#include "adapter_support.hpp"
#include "qsa/backends/plugin_capabilities.hpp"
#include "qsa/backends/worker_command.hpp"
#include "qsa/backends/worker_protocol.hpp"
#include "qsa/traces/json_reader.hpp"
#include "qsa/validate.hpp"
#include "worker_process.hpp"
#include "worker_shm.hpp"

namespace qsa::backends {
namespace {

using nlohmann::json;

// A worker's reply read by the one JSON reader (traces::parse_json): nesting past its limit, a key
// given twice or malformed text is a discarded value (a malformed frame), where nlohmann's own
// parse accepted a 100 000-deep value whose dump() in an error message then overflowed the stack.
json parse_reply(const std::string& text) {
  try {
    return traces::parse_json(text);
  } catch (const InputError&) {
    return json(json::value_t::discarded);
  }
}

std::atomic<int64_t> g_timeout_ms{60000};

// The buffers of one call in the shared memory, after the persistent part.
class CallBuffers {
 public:
  CallBuffers(SharedRegion& shm, size_t start) : shm_(shm), plan_(start) {}

  // Places `bytes` and returns its description (data copied in later by fill()).
  BufferRef add(size_t bytes, const char* dtype, std::vector<int64_t> shape, std::vector<int64_t> strides = {}) {
    const size_t offset = plan_.place(bytes);
    refs_.push_back(BufferRef{static_cast<int64_t>(offset), static_cast<int64_t>(bytes), dtype, std::move(shape),
                              std::move(strides)});
    sources_.push_back(nullptr);
    return refs_.back();
  }
  BufferRef add_from(const void* data, size_t bytes, const char* dtype, std::vector<int64_t> shape,
                     std::vector<int64_t> strides = {}) {
    BufferRef ref = add(bytes, dtype, std::move(shape), std::move(strides));
    sources_.back() = data;
    return ref;
  }
  // Grows the region if needed, copies the inputs in and poisons the outputs.
  Status fill(Error* error) {
    QSA_TRY(shm_.reserve(plan_.end(), error));
    for (size_t i = 0; i < refs_.size(); ++i) {
      uint8_t* at = shm_.data() + refs_[i].offset;
      const auto n = static_cast<size_t>(refs_[i].bytes);
      if (sources_[i] != nullptr)
        copy_bytes(at, sources_[i], n);
      else
        std::memset(at, kPoisonByte, n);
    }
    return Status::kOk;
  }
  void copy_out(const BufferRef& ref, void* destination) const {
    copy_bytes(destination, shm_.data() + ref.offset, static_cast<size_t>(ref.bytes));
  }

 private:
  SharedRegion& shm_;
  ShmPlan plan_;
  std::vector<BufferRef> refs_;
  std::vector<const void*> sources_;
};

BufferRef add_table(CallBuffers& b, const BlockTable& t) {
  return b.add_from(t.storage.data(), bytes_of(t.storage), "int32", {t.rows, t.cols}, {t.row_stride, t.col_stride});
}

// qsl and seq_lens as the int32 copies that cross (alive until the buffers are filled).
struct Narrowed {
  std::vector<int32_t> qsl, seq_lens;
  explicit Narrowed(const Batch& b) : qsl(narrow(b.query_start_loc)), seq_lens(narrow(b.seq_lens)) {}
};

void add_batch(CallBuffers& b, const Batch& batch, const Narrowed& n, json* request) {
  (*request)["num_actual_tokens"] = batch.num_actual_tokens;
  (*request)["reorder_batch_threshold"] = batch.reorder_batch_threshold;
  json& in = (*request)["inputs"];
  in["query_start_loc"] =
      to_json(b.add_from(n.qsl.data(), bytes_of(n.qsl), "int32", {static_cast<int64_t>(n.qsl.size())}));
  in["seq_lens"] =
      to_json(b.add_from(n.seq_lens.data(), bytes_of(n.seq_lens), "int32", {static_cast<int64_t>(n.seq_lens.size())}));
  in["common_slot_mapping"] = to_json(b.add_from(batch.common_slot_mapping.data(), bytes_of(batch.common_slot_mapping),
                                                 "int64", {static_cast<int64_t>(batch.common_slot_mapping.size())}));
}

std::string float_text(float v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", static_cast<double>(v));  // 9 digits: the binary32 value again
  return text;
}

std::string cache_dtype(const CacheLayout& l) { return l.element_bytes == 1 ? "uint8" : "bfloat16"; }

BufferRef cache_ref(const CacheLayout& l, size_t offset) {
  return BufferRef{static_cast<int64_t>(offset),
                   l.size_bytes(),
                   cache_dtype(l),
                   {l.num_blocks, l.rows, l.width},
                   {l.block_stride, l.row_stride, 1}};
}

bool same_layout(const CacheLayout& a, const CacheLayout& b) {
  return a.num_blocks == b.num_blocks && a.rows == b.rows && a.width == b.width && a.block_stride == b.block_stride &&
         a.row_stride == b.row_stride && a.element_bytes == b.element_bytes;
}

// The reply's "written" must name every output with exactly its size.
std::optional<std::string> wrong_size(const json& reply, const std::vector<std::pair<const char*, int64_t>>& outputs) {
  if (!reply.contains("written") || !reply["written"].is_object()) return std::string("the reply has no \"written\"");
  for (const auto& [name, bytes] : outputs) {
    const json& w = reply["written"];
    if (!w.contains(name) || !w[name].is_number_integer())
      return std::string("the reply does not say how many bytes of ") + name + " it wrote";
    if (w[name].get<int64_t>() != bytes)
      return std::string(name) + " is " + std::to_string(w[name].get<int64_t>()) + " bytes, expected " +
             std::to_string(bytes);
  }
  return std::nullopt;
}

}  // namespace

void set_worker_timeout(std::chrono::milliseconds timeout) { g_timeout_ms = timeout.count(); }
std::chrono::milliseconds worker_timeout() { return std::chrono::milliseconds(g_timeout_ms.load()); }

std::string worker_host_path() {
  if (const char* env = std::getenv("QSA_WORKER_HOST"); env != nullptr && *env != '\0') return env;
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return "qsacheck-worker-host";
  std::string path(self, static_cast<size_t>(n));
  return path.substr(0, path.rfind('/') + 1) + "qsacheck-worker-host";
}

WorkerBackend::WorkerBackend(std::string name)
    : name_(std::move(name)), shm_(std::make_unique<SharedRegion>()), process_(std::make_unique<WorkerProcess>()) {
  std::vector<std::string> argv;
  if (const char* off = std::getenv("QSA_NO_WORKERS"); off != nullptr && *off != '\0') {
    load_error_ =
        Error{"backend", -1, "workers-disabled", "worker processes are disabled here (QSA_NO_WORKERS is set)"};
    return;
  }
  if (name_.rfind(kIsolatedPrefix, 0) == 0) {
    argv = {worker_host_path(), name_.substr(std::strlen(kIsolatedPrefix))};
    if (access(argv[0].c_str(), X_OK) != 0) {
      load_error_ = Error{"backend", -1, "worker-host-missing",
                          argv[0] + " is not there: --isolate needs qsacheck-worker-host (set QSA_WORKER_HOST)"};
      return;
    }
  } else {
    Error error;
    if (split_worker_command(name_.substr(std::strlen(kWorkerPrefix)), &argv, &error) != Status::kOk) {
      load_error_ = error;
      return;
    }
  }
  command_ = join_worker_command(argv);
  argv_ = argv;
  if (start(argv) != Status::kOk) process_->end(std::chrono::milliseconds(0));
}

WorkerBackend::~WorkerBackend() { process_->end(std::chrono::milliseconds(500)); }

Status WorkerBackend::start(const std::vector<std::string>& argv) {
  QSA_TRY(shm_->create(1, &load_error_));
  QSA_TRY(process_->start(argv, shm_->fd(), &load_error_));
  const json request = {
      {"op", "hello"}, {"protocol", kWorkerProtocolVersion}, {"spec_version", "1"}, {"shm_bytes", shm_->size()}};
  // A worker answers with its own version, any of kOldestWorkerProtocolVersion ... this one.
  std::string text;
  auto handshake_failed = [&](const std::string& why) {
    load_error_ = process_->fault("worker-handshake", why);
    load_error_.field = "backend";
    return Status::kUnavailable;
  };
  Error error;
  if (process_->send(request.dump(), worker_timeout(), &error) != Status::kOk ||
      process_->receive("hello reply", worker_timeout(), &text, &error) != Status::kOk) {
    load_error_ = Error{"backend", -1, "worker-handshake", "the handshake failed: " + error.message};
    return Status::kUnavailable;
  }
  const json reply = parse_reply(text);
  if (!reply.is_object() || reply.value("op", "") != "hello")
    return handshake_failed("its first frame is not a hello reply: " + text.substr(0, 200));
  if (!reply.contains("protocol") || !reply["protocol"].is_number_integer() ||
      reply["protocol"].get<int64_t>() < kOldestWorkerProtocolVersion ||
      reply["protocol"].get<int64_t>() > kWorkerProtocolVersion)
    return handshake_failed("it speaks protocol " + (reply.contains("protocol") ? reply["protocol"].dump() : "(none)") +
                            "; this qsacheck speaks " + std::to_string(kOldestWorkerProtocolVersion) + " to " +
                            std::to_string(kWorkerProtocolVersion));
  hello_.protocol = static_cast<int>(reply["protocol"].get<int64_t>());
  if (!reply.contains("name") || !reply["name"].is_string() || !reply.contains("capabilities"))
    return handshake_failed("the hello reply lacks name or capabilities");
  std::string why;
  if (!capabilities_from_json(reply["capabilities"], hello_.protocol, &hello_.capabilities, &why))
    return handshake_failed("bad capabilities: " + why);
  hello_.name = reply["name"].get<std::string>();
  hello_.spec_version = reply.value("spec_version", "");
  hello_.build_info = reply.value("build_info", "");
  if (reply.contains("variants")) {
    const json& variants = reply["variants"];
    if (!variants.is_array()) return handshake_failed("\"variants\" is not an array");
    std::set<std::string> seen;
    for (const json& v : variants) {
      if (!v.is_object() || !v.contains("name") || !v["name"].is_string() ||
          !is_variant_name(v["name"].get<std::string>().c_str()) || !seen.insert(v["name"].get<std::string>()).second)
        return handshake_failed("a variant needs a unique name of [A-Za-z0-9_.-]+: " + v.dump().substr(0, 200));
      hello_.variants.push_back({v["name"].get<std::string>(), v.value("description", "")});
    }
  }
  if (hello_.spec_version != "1")
    return handshake_failed("it implements SPEC version \"" + hello_.spec_version + "\"; qsacheck checks version 1");
  ready_ = true;
  return Status::kOk;
}

Status WorkerBackend::probe(std::string* reason) const {
  if (ready_) return Status::kOk;
  if (reason != nullptr) *reason = "[" + load_error_.rule + "] " + load_error_.message;
  return Status::kUnavailable;
}

Error WorkerBackend::capability_error(const std::string& missing) const {
  return Error{"backend", -1, kMissingCapability,
               name_ + " does not declare the capability this input needs: " + missing};
}

std::optional<std::string> WorkerBackend::excludes(const MetadataInput& input) const {
  return ready_ ? missing_for_metadata(hello_.capabilities, input) : std::nullopt;
}

std::optional<std::string> WorkerBackend::excludes(const StepInput& input, const StepCaches& caches) const {
  return ready_ ? excluded_step(hello_.capabilities, input, caches) : std::nullopt;
}

std::optional<std::string> WorkerBackend::excludes(const StepGeometry& geometry) const {
  return ready_ ? missing_for_geometry(hello_.capabilities, geometry) : std::nullopt;
}

Deviations WorkerBackend::deviations() const { return ready_ ? hello_.capabilities.deviations : Deviations{}; }

Status WorkerBackend::earlier_fault(Error* error) const {
  *error = *fault_;
  error->message = "(the worker ended at an earlier call) " + error->message;
  return Status::kInternalError;
}

// The first call after a fault starts a fresh worker (so --keep-going goes on with the next scenario
// or batch instead of answering the old fault forever), with fresh shared memory: the old one may be
// half written. At most kMaxWorkerRestarts times per backend, so a worker that hangs at every call
// costs a bounded number of timeouts; after that, or when the restart's handshake fails, every
// call answers the fault.
Status WorkerBackend::restart_after_fault(Error* error) {
  if (!fault_) return Status::kOk;
  if (restarts_ >= kMaxWorkerRestarts) return earlier_fault(error);
  ++restarts_;
  process_ = std::make_unique<WorkerProcess>();
  shm_ = std::make_unique<SharedRegion>();
  persistent_ = Persistent{};
  if (start(argv_) != Status::kOk) {
    process_->end(std::chrono::milliseconds(0));
    ready_ = true;                   // it was available: its calls keep answering the fault, not "unavailable"
    restarts_ = kMaxWorkerRestarts;  // no more tries
    fault_->message += " (restarting it failed: " + load_error_.message + ")";
    return earlier_fault(error);
  }
  fault_.reset();
  return Status::kOk;
}

Status WorkerBackend::fail(const std::string& rule, const std::string& message, Error* error) {
  fault_ = process_->fault(rule, message);
  *error = *fault_;
  return Status::kInternalError;
}

Status WorkerBackend::call(const json& request, const std::string& what, json* reply, Error* error) {
  if (fault_) return earlier_fault(error);
  std::string text;
  Error e;
  const std::string frame = request.dump();
  const auto start = std::chrono::steady_clock::now();
  const bool answered = process_->send(frame, worker_timeout(), &e) == Status::kOk &&
                        process_->receive(what, worker_timeout(), &text, &e) == Status::kOk;
  kernel_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!answered) {
    fault_ = e;
    *error = std::move(e);
    return Status::kInternalError;
  }
  *reply = parse_reply(text);
  if (reply->is_discarded() || !reply->is_object())
    return fail("malformed-frame", "the " + what + " is not a JSON object: " + text.substr(0, 200), error);
  if (reply->value("op", "") != request["op"].get<std::string>() || !reply->contains("id") ||
      (*reply)["id"] != request["id"] || !reply->contains("status"))
    return fail("bad-reply",
                "the " + what + " does not answer the request (op " + request["op"].dump() + ", id " +
                    request["id"].dump() + ", and a status): " + text.substr(0, 200),
                error);
  return Status::kOk;
}

// A reply with status "error": the worker's code, field, index, rule and message, as a plugin's.
Status WorkerBackend::worker_error(const json& reply, const char* call_name, Error* error) {
  const std::string code = reply.value("code", "internal");
  QsaPluginError e{};
  std::snprintf(e.field, sizeof e.field, "%s", reply.value("field", "").c_str());
  std::snprintf(e.rule, sizeof e.rule, "%s", reply.value("rule", "").c_str());
  std::snprintf(e.message, sizeof e.message, "%s", reply.value("message", "").c_str());
  e.index = reply.contains("index") && reply["index"].is_number_integer() ? reply["index"].get<int64_t>() : -1;
  const int32_t plugin_code = code == "invalid-input"  ? QSA_PLUGIN_INVALID_INPUT
                              : code == "unsupported"  ? QSA_PLUGIN_UNSUPPORTED
                              : code == "device-error" ? QSA_PLUGIN_DEVICE_ERROR
                                                       : QSA_PLUGIN_INTERNAL;
  return failed_call_status(plugin_code, e, name_, call_name, error);
}

Status WorkerBackend::build_metadata(const MetadataInput& input, MetadataOutput* output, Error* error) {
  if (probe(nullptr) != Status::kOk) {
    *error = load_error_;
    return Status::kUnavailable;
  }
  QSA_TRY(validate(input, error));
  if (auto missing = missing_for_metadata(hello_.capabilities, input)) {
    *error = capability_error(*missing);
    return Status::kNotImplemented;
  }
  QSA_TRY(restart_after_fault(error));
  const int64_t id = ++calls_;
  json request = {{"op", "metadata"},
                  {"id", id},
                  {"kind", to_string(input.cache.kind)},
                  {"compress_ratio", input.cache.kind == CacheKind::kCompressed ? input.cache.compress_ratio.value_or(0)
                                                                                : input.cache.builder_ratio()},
                  {"storage_block_size", input.cache.storage_block_size},
                  {"ring_capacity", input.cache.ring_capacity}};
  CallBuffers b(*shm_, persistent_.end);
  const Narrowed narrowed(input.batch);
  add_batch(b, input.batch, narrowed, &request);
  request["inputs"]["block_table"] = to_json(add_table(b, input.block_table));
  const auto n = static_cast<int64_t>(output->token_to_req.size());
  const BufferRef outs[5] = {
      b.add(bytes_of(output->token_to_req), "int32", {n}), b.add(bytes_of(output->logical_positions), "int64", {n}),
      b.add(bytes_of(output->visible_blocks), "int32", {n}), b.add(bytes_of(output->slot_mapping), "int64", {n}),
      b.add(bytes_of(output->k_work_metadata), "int32", {static_cast<int64_t>(output->k_work_metadata.size() / 2), 2})};
  const char* names[5] = {"token_to_req", "logical_positions", "visible_blocks", "slot_mapping", "k_work_metadata"};
  for (int i = 0; i < 5; ++i) request["outputs"][names[i]] = to_json(outs[i]);
  QSA_TRY(b.fill(error));
  request["shm_bytes"] = shm_->size();

  json reply;
  const std::string what = "reply to call " + std::to_string(id) + " (metadata)";
  QSA_TRY(call(request, what, &reply, error));
  if (reply["status"] != "ok") return worker_error(reply, "build_metadata", error);
  std::vector<std::pair<const char*, int64_t>> sizes;
  for (int i = 0; i < 5; ++i) sizes.emplace_back(names[i], outs[i].bytes);
  if (auto wrong = wrong_size(reply, sizes)) return fail("wrong-size", "the " + what + ": " + *wrong, error);
  std::string why;
  if (!split_from_json(reply.value("split", json()), &output->split, &why))
    return fail("bad-reply", "the " + what + ": " + why, error);
  b.copy_out(outs[0], output->token_to_req.data());
  b.copy_out(outs[1], output->logical_positions.data());
  b.copy_out(outs[2], output->visible_blocks.data());
  b.copy_out(outs[3], output->slot_mapping.data());
  b.copy_out(outs[4], output->k_work_metadata.data());
  return Status::kOk;
}

// The caches and the RoPE table live in the shared memory across steps (docs/worker-protocol.md,
// "Who owns the caches"); only the bytes where qsacheck's copy differs from what is there are copied in.
Status WorkerBackend::sync_persistent(const StepInput& input, const StepCaches& caches, bool* caches_changed,
                                      Error* error) {
  Persistent& p = persistent_;
  const size_t cos_sin_bytes = input.config.cos_sin_size() * sizeof(Bf16);
  if (!same_layout(p.ring, caches.ring.layout) || !same_layout(p.compressed, caches.compressed.layout) ||
      p.cos_sin_bytes != cos_sin_bytes || p.end == 0) {
    ShmPlan plan;
    p.ring = caches.ring.layout;
    p.compressed = caches.compressed.layout;
    p.ring_offset = plan.place(caches.ring.bytes.size());
    p.compressed_offset = plan.place(caches.compressed.bytes.size());
    p.cos_sin_offset = plan.place(cos_sin_bytes);
    p.cos_sin_bytes = cos_sin_bytes;
    p.end = plan.end();
    p.caches_valid = false;
    p.cos_sin_source.reset();
  }
  QSA_TRY(shm_->reserve(p.end, error));
  uint8_t* base = shm_->data();
  *caches_changed = !p.caches_valid;
  if (!p.caches_valid) {
    copy_bytes(base + p.ring_offset, caches.ring.bytes.data(), caches.ring.bytes.size());
    copy_bytes(base + p.compressed_offset, caches.compressed.bytes.data(), caches.compressed.bytes.size());
  } else {
    // Only what qsacheck changed since the last step (new blocks poisoned, a prefill's rows) is
    // copied: the ranges its journal lists when the shared memory matches the journal's token, else
    // the bytes where the two differ.
    for (const auto& place : {std::make_pair(p.ring_offset, &caches.ring), std::make_pair(p.compressed_offset, &caches.compressed)}) {
      uint8_t* to = base + place.first;  // variables, not bindings: clang 14 captures no bindings (the fuzzing build)
      const CacheBuffer& cache = *place.second;
      const uint64_t token = &cache == &caches.ring ? p.ring_token : p.compressed_token;
      const auto copy = [&](size_t at, size_t n) {
        copy_bytes(to + at, cache.bytes.data() + at, n);
        *caches_changed = true;
      };
      if (journal_in_sync(cache, token))
        for_each_host_edit(cache, copy);
      else
        for_each_difference(cache.bytes.data(), to, cache.bytes.size(), copy);
    }
  }
  p.ring_token = p.compressed_token = 0;  // the journal holds again once the step's writes are back
  if (p.cos_sin_source != input.config.cos_sin || !input.config.cos_sin) {
    copy_bytes(base + p.cos_sin_offset, input.config.cos_sin_data(), cos_sin_bytes);
    p.cos_sin_source = input.config.cos_sin;
  }
  p.caches_valid = true;
  return Status::kOk;
}

Status WorkerBackend::step_update(const StepInput& input, StepCaches* caches, StepOutput* output, Error* error) {
  if (probe(nullptr) != Status::kOk) {
    *error = load_error_;
    return Status::kUnavailable;
  }
  QSA_TRY(validate_step(input, *caches, error));
  if (auto missing = missing_for_step(hello_.capabilities, input, *caches)) {
    *error = capability_error(*missing);
    return Status::kNotImplemented;
  }
  QSA_TRY(restart_after_fault(error));  // the old shared memory may be half written: nothing is copied
  // STEP_USES_METADATA: the worker's own metadata of both groups, handed to its step and back with
  // the step's outputs (StepOutput::step_metadata), where the checking engine judges it.
  std::vector<std::pair<const char*, MetadataOutput>> own_metadata;
  if ((hello_.capabilities.capabilities.features & QSA_PLUGIN_FEATURE_STEP_USES_METADATA) != 0) {
    for (const auto& [group, prefix] : {std::make_pair(input.compressed_metadata_input(), "compressed_"),
                                        std::make_pair(input.ring_metadata_input(), "ring_")}) {
      MetadataOutput got = make_poisoned_metadata_output(group);
      QSA_TRY(build_metadata(group, &got, error));
      own_metadata.emplace_back(prefix, got);
      output->step_metadata.push_back(std::move(got));
    }
  }
  const StepConfig& c = input.config;
  const int64_t id = ++calls_;
  bool caches_changed = false;
  QSA_TRY(sync_persistent(input, *caches, &caches_changed, error));
  json request = {{"op", "step"},
                  {"id", id},
                  {"store_dtype", to_string(c.store_dtype)},
                  {"compress_ratio", c.compress_ratio},
                  {"storage_block_size", c.storage_block_size},
                  {"ring_capacity", c.ring_capacity},
                  {"head_dim", c.head_dim},
                  {"rotary_dim", c.rotary_dim},
                  {"num_heads", c.num_heads},
                  {"eps", json::parse(float_text(c.eps))},
                  {"mrope_sections", c.mrope_sections ? json(*c.mrope_sections) : json(nullptr)},
                  {"ring_positions", c.ring_positions},
                  {"max_position", c.max_position},
                  {"caches_changed", caches_changed}};
  CallBuffers b(*shm_, persistent_.end);
  const Narrowed narrowed(input.batch);
  add_batch(b, input.batch, narrowed, &request);
  json& in = request["inputs"];
  const int64_t n = input.num_tokens();
  in["block_table"] = to_json(add_table(b, input.block_table));
  in["ring_block_table"] = to_json(add_table(b, input.ring_block_table));
  in["keys"] = to_json(b.add_from(input.keys.data(), bytes_of(input.keys), "bfloat16", {n, c.head_dim}));
  in["queries"] =
      to_json(b.add_from(input.queries.data(), bytes_of(input.queries), "bfloat16", {n, c.num_heads, c.head_dim}));
  in["positions"] =
      to_json(b.add_from(input.positions.data(), bytes_of(input.positions), "int64",
                         input.position_axes == 3 ? std::vector<int64_t>{3, n} : std::vector<int64_t>{n}));
  in["cos_sin"] = to_json(BufferRef{static_cast<int64_t>(persistent_.cos_sin_offset),
                                    static_cast<int64_t>(persistent_.cos_sin_bytes),
                                    "bfloat16",
                                    {c.max_position, c.rotary_dim},
                                    {}});
  in["w_k"] = to_json(b.add_from(c.w_k.data(), bytes_of(c.w_k), "bfloat16", {c.head_dim}));
  in["w_q"] = to_json(b.add_from(c.w_q.data(), bytes_of(c.w_q), "bfloat16", {c.head_dim}));
  for (const auto& [prefix, m] : own_metadata) {  // docs/worker-protocol.md, "step"
    const std::string p = prefix;
    in[p + "token_to_req"] = to_json(b.add_from(m.token_to_req.data(), bytes_of(m.token_to_req), "int32", {n}));
    in[p + "logical_positions"] =
        to_json(b.add_from(m.logical_positions.data(), bytes_of(m.logical_positions), "int64", {n}));
    in[p + "visible_blocks"] = to_json(b.add_from(m.visible_blocks.data(), bytes_of(m.visible_blocks), "int32", {n}));
    in[p + "slot_mapping"] = to_json(b.add_from(m.slot_mapping.data(), bytes_of(m.slot_mapping), "int64", {n}));
    in[p + "k_work_metadata"] =
        to_json(b.add_from(m.k_work_metadata.data(), bytes_of(m.k_work_metadata), "int32",
                           {static_cast<int64_t>(m.k_work_metadata.size() / 2), 2}));
  }
  request["caches"]["ring"] = to_json(cache_ref(caches->ring.layout, persistent_.ring_offset));
  request["caches"]["compressed"] = to_json(cache_ref(caches->compressed.layout, persistent_.compressed_offset));
  const bool fp8 = c.store_dtype == StoreDtype::kFp8E4m3;
  const BufferRef q_out = b.add(output->q_out.size(), fp8 ? "uint8" : "bfloat16", {n, c.num_heads, c.head_dim});
  request["outputs"]["q_out"] = to_json(q_out);
  QSA_TRY(b.fill(error));
  request["shm_bytes"] = shm_->size();

  json reply;
  const std::string what = "reply to call " + std::to_string(id) + " (step update)";
  QSA_TRY(call(request, what, &reply, error));
  // The caches come back even after an error reply: a worker that wrote before failing shows it.
  // Only the bytes the worker changed are copied back; the engine judges them (the rows the step may
  // write by the differential, any other by the write check: SPEC 7.5). This pass reads the whole
  // cache, so the ranges it copies are every write of the step (CacheJournal::kernel_writes): the
  // engine compares the rest of the caches only when a range lies outside the rows the step may write.
  for (const auto& place : {std::make_pair(persistent_.ring_offset, &caches->ring),
                            std::make_pair(persistent_.compressed_offset, &caches->compressed)}) {
    const uint8_t* shm = shm_->data() + place.first;
    CacheBuffer& cache = *place.second;
    std::vector<ByteRange> writes;
    for_each_difference(shm, cache.bytes.data(), cache.bytes.size(), [&](size_t at, size_t count) {
      copy_bytes(cache.bytes.data() + at, shm + at, count);
      writes.emplace_back(at, at + count);
    });
    cache.journal.kernel_writes = std::move(writes);
    const uint64_t token = new_cache_token();
    mark_synced(cache, token);
    (&cache == &caches->ring ? persistent_.ring_token : persistent_.compressed_token) = token;
  }
  if (reply["status"] != "ok") return worker_error(reply, "step_update", error);
  if (auto wrong = wrong_size(reply, {{"q_out", q_out.bytes}}))
    return fail("wrong-size", "the " + what + ": " + *wrong, error);
  const std::string status = reply.value("step_status", "");
  if (status != "ok" && status != "position-out-of-range")
    return fail("bad-reply", "the " + what + ": step_status is \"" + status + "\" (ok or position-out-of-range)",
                error);
  b.copy_out(q_out, output->q_out.data());
  output->step_status = status == "ok" ? StepStatus::kOk : StepStatus::kPositionOutOfRange;
  return Status::kOk;
}

void register_worker_backends(BackendRegistry& registry) {
  registry.add_family(kWorkerPrefix, "a worker process speaking docs/worker-protocol.md (any language)",
                      [](const std::string& name) { return std::make_unique<WorkerBackend>(name); });
  registry.add_family(kIsolatedPrefix, "a backend (e.g. plugin:PATH.so) run inside qsacheck-worker-host (--isolate)",
                      [](const std::string& name) { return std::make_unique<WorkerBackend>(name); });
}

}  // namespace qsa::backends
