#include "qsa/backends/plugin_backend.hpp"

#include <chrono>
#include <cstring>
#include <map>
#include <mutex>

#include "plugin_instance.hpp"
#include "plugin_memory.hpp"
#include "plugin_step_args.hpp"
#include "qsa/backends/plugin_capabilities.hpp"
#include "qsa/backends/plugin_library.hpp"
#include "qsa/validate.hpp"

namespace qsa::backends {

namespace {

std::string text(const char* chars, size_t capacity) { return std::string(chars, strnlen(chars, capacity)); }

MetadataOutput download_shape(const MetadataInput& input) { return make_poisoned_metadata_output(input); }

Status read_metadata(const PluginMetadataBuffers& b, MetadataOutput* out, Error* error) {
  QSA_TRY(b.token_to_req.download_to(out->token_to_req.data(), bytes_of(out->token_to_req), error));
  QSA_TRY(b.logical_positions.download_to(out->logical_positions.data(), bytes_of(out->logical_positions), error));
  QSA_TRY(b.visible_blocks.download_to(out->visible_blocks.data(), bytes_of(out->visible_blocks), error));
  QSA_TRY(b.slot_mapping.download_to(out->slot_mapping.data(), bytes_of(out->slot_mapping), error));
  QSA_TRY(b.k_work.download_to(out->k_work_metadata.data(), bytes_of(out->k_work_metadata), error));
  const QsaBatchSplit& s = b.split;
  out->split = BatchSplit{s.num_decodes,   s.num_decode_tokens, s.num_prefills, s.num_prefill_tokens,
                          s.max_query_len, s.decode_query_len,  s.max_seq_len};
  return Status::kOk;
}

std::shared_ptr<PluginInstance> open_instance(const std::shared_ptr<PluginLibrary>& library, const std::string& variant,
                                              int device_ordinal, Error* error) {
  static std::mutex mutex;
  static std::map<std::pair<const PluginLibrary*, std::string>, std::weak_ptr<PluginInstance>> shared;
  const bool concurrent = (library->capabilities().features & QSA_PLUGIN_FEATURE_CONCURRENT_INSTANCES) != 0;
  std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_pair(library.get(), variant);
  if (!concurrent)
    if (auto existing = shared[key].lock()) return existing;
  auto instance = std::make_shared<PluginInstance>();
  instance->library = library;
  QsaPluginInstanceArgs args{};
  args.struct_size = sizeof args;
  args.device_ordinal = device_ordinal;
  args.variant = variant.empty() ? nullptr : variant.c_str();
  QsaPluginError e{};
  e.index = -1;
  const int32_t code = library->table().create(&args, &instance->handle, &e);
  if (code != QSA_PLUGIN_OK) {
    instance->handle = nullptr;
    *error = Error{
        "plugin", -1, "create-failed",
        library->path() + ": create returned code " + std::to_string(code) + ": " + text(e.message, sizeof e.message)};
    return nullptr;
  }
  if (!concurrent) shared[key] = instance;
  return instance;
}

}  // namespace

PluginBackend::PluginBackend(std::string name)
    : name_(std::move(name)), buffers_(std::make_unique<PluginBackendBuffers>()) {
  const std::optional<PluginName> parsed = parse_plugin_name(name_);
  if (!parsed) {
    load_error_ =
        Error{"backend", -1, "bad-plugin-name", "\"" + name_ + "\" is not plugin:PATH or plugin:PATH#VARIANT"};
    return;
  }
  library_ = PluginLibrary::open(parsed->path, &load_error_);
  if (!library_) return;
  if (!parsed->variant.empty() && !library_->has_variant(parsed->variant)) {
    std::string names;
    for (const std::string& v : library_->variant_names()) names += (names.empty() ? "" : ", ") + v;
    load_error_ = Error{"plugin", -1, "unknown-variant",
                        parsed->path + ": no planted variant \"" + parsed->variant +
                            "\" (it has: " + (names.empty() ? "none" : names) + ")"};
    library_.reset();
    return;
  }
  const bool cuda = library_->capabilities().memory == QSA_PLUGIN_MEMORY_CUDA;
  memory_ = cuda ? make_cuda_memory(0, &load_error_) : make_host_memory();
  if (!memory_) {
    load_error_.message = parsed->path + " needs a CUDA device: " + load_error_.message;
    return;
  }
  instance_ = open_instance(library_, parsed->variant, cuda ? 0 : -1, &load_error_);
}

PluginBackend::~PluginBackend() {
  // Device buffers go before the instance and the memory (context) they live in.
  buffers_.reset();
  ring_.reset();
  compressed_.reset();
  cos_sin_.reset();
  instance_.reset();
}

Status PluginBackend::probe(std::string* reason) const {
  if (instance_) return Status::kOk;
  if (reason != nullptr) *reason = "[" + load_error_.rule + "] " + load_error_.message;
  return Status::kUnavailable;
}

Error PluginBackend::capability_error(const std::string& missing) const {
  return Error{"backend", -1, kMissingCapability,
               name_ + " does not declare the capability this input needs: " + missing};
}

Status PluginBackend::run_metadata(const MetadataInput& in, PluginMetadataBuffers* b, Error* error) {
  PluginMemory& memory = *memory_;
  const MetadataOutput shape = download_shape(in);
  QsaPluginMetadataArgs args{};
  args.struct_size = sizeof args;
  args.cache_kind = in.cache.kind == CacheKind::kCompressed ? QSA_PLUGIN_KIND_ID_COMPRESSED
                    : in.cache.kind == CacheKind::kRing     ? QSA_PLUGIN_KIND_ID_RING
                                                            : QSA_PLUGIN_KIND_ID_PASSTHROUGH;
  args.compress_ratio =
      in.cache.kind == CacheKind::kCompressed ? in.cache.compress_ratio.value_or(0) : in.cache.builder_ratio();
  args.storage_block_size = in.cache.storage_block_size;
  args.ring_capacity = in.cache.ring_capacity;
  QSA_TRY(upload_batch(memory, in.batch, b, error));
  args.batch = b->batch;
  QSA_TRY(upload_table(memory, in.block_table, &b->block_table, &args.block_table, error));
  const auto n = static_cast<int64_t>(shape.token_to_req.size());
  QSA_TRY(b->token_to_req.allocate(memory, bytes_of(shape.token_to_req), error));
  QSA_TRY(b->logical_positions.allocate(memory, bytes_of(shape.logical_positions), error));
  QSA_TRY(b->visible_blocks.allocate(memory, bytes_of(shape.visible_blocks), error));
  QSA_TRY(b->slot_mapping.allocate(memory, bytes_of(shape.slot_mapping), error));
  QSA_TRY(b->k_work.allocate(memory, bytes_of(shape.k_work_metadata), error));
  std::memset(&b->split, 0xA5, sizeof b->split);
  b->out.token_to_req = b->token_to_req.tensor(kDLInt, 32, {n});
  b->out.logical_positions = b->logical_positions.tensor(kDLInt, 64, {n});
  b->out.visible_blocks = b->visible_blocks.tensor(kDLInt, 32, {n});
  b->out.slot_mapping = b->slot_mapping.tensor(kDLInt, 64, {n});
  b->out.k_work_metadata = b->k_work.tensor(kDLInt, 32, {static_cast<int64_t>(shape.k_work_metadata.size() / 2), 2});
  b->out.split = &b->split;
  args.out = b->out;
  args.stream = memory.stream();
  QsaPluginError e{};
  e.index = -1;
  const auto start = std::chrono::steady_clock::now();
  const int32_t code = library_->table().build_metadata(instance_->handle, &args, &e);
  QSA_TRY(memory.synchronize(error));
  kernel_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (code != QSA_PLUGIN_OK) return failed_call_status(code, e, name_, "build_metadata", error);
  return Status::kOk;
}

Status PluginBackend::build_metadata(const MetadataInput& input, MetadataOutput* output, Error* error) {
  if (!instance_) {
    *error = load_error_;
    return Status::kUnavailable;
  }
  if (Status s = validate(input, error); s != Status::kOk) return s;
  if (auto missing = missing_for_metadata(library_->declaration(), input)) {
    *error = capability_error(*missing);
    return Status::kNotImplemented;
  }
  QSA_TRY(run_metadata(input, &buffers_->metadata, error));
  return read_metadata(buffers_->metadata, output, error);
}

Status PluginBackend::sync_cache(const CacheBuffer& host, std::unique_ptr<PluginBuffer>* device, CacheBytes* shadow,
                                 uint64_t* token, Error* error) {
  const uint64_t matched = *token;
  *token = 0;  // the journal holds again once the step's writes are back (download_cache)
  if (*device && (*device)->bytes() == host.bytes.size() && shadow->size() == host.bytes.size()) {
    // Only what qsacheck changed since the last step (new blocks poisoned, a prefill's rows) goes up:
    // the ranges its journal lists when the device matches the journal's token, else the differences.
    Status status = Status::kOk;
    const auto upload = [&](size_t at, size_t n) {
      if (status == Status::kOk)
        status = memory_->upload(static_cast<uint8_t*>((*device)->data()) + at, host.bytes.data() + at, n, error);
      copy_bytes(shadow->data() + at, host.bytes.data() + at, n);
    };
    if (journal_in_sync(host, matched))
      for_each_host_edit(host, upload);
    else
      for_each_difference(host.bytes.data(), shadow->data(), host.bytes.size(), upload);
    return status;
  }
  *device = std::make_unique<PluginBuffer>();
  *shadow = host.bytes;
  return (*device)->allocate_from(*memory_, host.bytes.data(), host.bytes.size(), error);
}

// After a step on the device: the caches come down whole (a CUDA plugin cannot be diffed in place)
// and the shadow follows the host in the bytes that changed. That pass reads the whole cache, so
// its ranges are every write of the step (CacheJournal::kernel_writes, SPEC 7.5).
Status PluginBackend::download_cache(const PluginBuffer& device, CacheBuffer* host, CacheBytes* shadow,
                                     uint64_t* token, Error* error) {
  QSA_TRY(device.download_to(host->bytes.data(), host->bytes.size(), error));
  std::vector<ByteRange> writes;
  for_each_difference(host->bytes.data(), shadow->data(), host->bytes.size(), [&](size_t at, size_t n) {
    copy_bytes(shadow->data() + at, host->bytes.data() + at, n);
    writes.emplace_back(at, at + n);
  });
  host->journal.kernel_writes = std::move(writes);
  *token = new_cache_token();
  mark_synced(*host, *token);
  return Status::kOk;
}

Status PluginBackend::step_metadata(const StepInput& input, PluginMetadataBuffers* compressed,
                                    PluginMetadataBuffers* ring, QsaPluginStepArgs* args,
                                    std::vector<MetadataOutput>* given, Error* error) {
  if ((library_->capabilities().features & QSA_PLUGIN_FEATURE_STEP_USES_METADATA) == 0) return Status::kOk;
  // Handed back with the step's outputs: the checking engine judges it against the contract.
  const MetadataInput groups[2] = {input.compressed_metadata_input(), input.ring_metadata_input()};
  PluginMetadataBuffers* buffers[2] = {compressed, ring};
  for (int g = 0; g < 2; ++g) {
    QSA_TRY(run_metadata(groups[g], buffers[g], error));
    MetadataOutput got = download_shape(groups[g]);
    QSA_TRY(read_metadata(*buffers[g], &got, error));
    given->push_back(std::move(got));
  }
  args->compressed_metadata = &compressed->out;
  args->ring_metadata = &ring->out;
  return Status::kOk;
}

Status PluginBackend::step_update(const StepInput& input, StepCaches* caches, StepOutput* output, Error* error) {
  if (!instance_) {
    *error = load_error_;
    return Status::kUnavailable;
  }
  if (Status s = validate_step(input, *caches, error); s != Status::kOk) return s;
  if (auto missing = missing_for_step(library_->declaration(), input, *caches)) {
    *error = capability_error(*missing);
    return Status::kNotImplemented;
  }
  PluginMemory& memory = *memory_;
  const StepConfig& c = input.config;
  QsaPluginStepArgs args{};
  fill_step_config(c, &args);

  // The plugin's own metadata of this step, when its step update reads it. Every buffer of a step is
  // the last step's when large enough: steady state allocates nothing.
  PluginBackendBuffers& b = *buffers_;
  QSA_TRY(step_metadata(input, &b.compressed_metadata, &b.ring_metadata, &args, &output->step_metadata, error));
  QSA_TRY(upload_step_inputs(memory, input, &b.step, &args, error));
  // The table is shared and immutable: uploaded once per table. Holding it keeps its address from
  // being reused by the next scenario's table.
  if (!cos_sin_ || cos_sin_source_ != c.cos_sin || !c.cos_sin) {
    cos_sin_ = std::make_unique<PluginBuffer>();
    QSA_TRY(cos_sin_->allocate_from(memory, c.cos_sin_data(), c.cos_sin_size() * sizeof(Bf16), error));
    cos_sin_source_ = c.cos_sin;
  }
  args.cos_sin = cos_sin_->tensor(kDLBfloat, 16, {c.max_position, c.rotary_dim});
  const bool host = memory.device().device_type == kDLCPU;
  if (host) {
    // A host plugin steps qsacheck's own caches in place, as the built-in backends do: nothing is
    // copied, and the engine's touched-row comparison and write check apply unchanged.
    args.ring_cache = host_cache_tensor(caches->ring, &b.ring_shape);
    args.compressed_cache = host_cache_tensor(caches->compressed, &b.compressed_shape);
  } else {
    QSA_TRY(sync_cache(caches->ring, &ring_, &ring_shadow_, &ring_token_, error));
    QSA_TRY(sync_cache(caches->compressed, &compressed_, &compressed_shadow_, &compressed_token_, error));
    args.ring_cache = cache_tensor(caches->ring.layout, ring_.get());
    args.compressed_cache = cache_tensor(caches->compressed.layout, compressed_.get());
  }
  args.stream = memory.stream();

  QsaPluginError e{};
  e.index = -1;
  const auto start = std::chrono::steady_clock::now();
  const int32_t code = library_->table().step_update(instance_->handle, &args, &e);
  QSA_TRY(memory.synchronize(error));
  kernel_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // The caches come back even after a failure: a plugin that wrote before failing shows it.
  if (!host) {
    QSA_TRY(download_cache(*ring_, &caches->ring, &ring_shadow_, &ring_token_, error));
    QSA_TRY(download_cache(*compressed_, &caches->compressed, &compressed_shadow_, &compressed_token_, error));
  }
  if (code != QSA_PLUGIN_OK) return failed_call_status(code, e, name_, "step_update", error);
  const PluginStepBuffers& step = b.step;
  QSA_TRY(step.q_out.download_to(output->q_out.data(), output->q_out.size(), error));
  int32_t status = 0;
  QSA_TRY(step.step_status.download_to(&status, sizeof status, error));
  if (status == QSA_PLUGIN_STEP_OK) {
    output->step_status = StepStatus::kOk;
  } else if (status == QSA_PLUGIN_STEP_POSITION_OUT_OF_RANGE) {
    output->step_status = StepStatus::kPositionOutOfRange;
  } else {
    *error = Error{"plugin", -1, "bad-step-status",
                   name_ + " left step_status " + std::to_string(status) + " (0xA5A5A5A5 means never written)"};
    return Status::kInternalError;
  }
  return Status::kOk;
}

std::optional<std::string> PluginBackend::excludes(const MetadataInput& input) const {
  return library_ ? missing_for_metadata(library_->declaration(), input) : std::nullopt;
}

std::optional<std::string> PluginBackend::excludes(const StepInput& input, const StepCaches& caches) const {
  return library_ ? excluded_step(library_->declaration(), input, caches) : std::nullopt;
}

std::optional<std::string> PluginBackend::excludes(const StepGeometry& geometry) const {
  return library_ ? missing_for_geometry(library_->declaration(), geometry) : std::nullopt;
}

Deviations PluginBackend::deviations() const { return library_ ? library_->declaration().deviations : Deviations{}; }

void register_plugin_backends(BackendRegistry& registry) {
  registry.add_family(kPluginPrefix, "a kernel loaded from a shared library (include/qsacheck/plugin.h)",
                      [](const std::string& name) { return std::make_unique<PluginBackend>(name); });
}

}  // namespace qsa::backends
