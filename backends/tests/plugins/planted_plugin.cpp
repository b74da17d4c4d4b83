// The CPU planted set as a plugin built from the C ABI (plugin/include/qsacheck/plugin.h): one
// variant per planted bug (its name without "bug:"), the plugin as shipped being the control
// (bug:none). Each call's DLTensors are copied into the reference's types, the planted backend runs
// on them and the outputs are copied back, so `qsacheck mutants --backend plugin:THIS.so` runs the
// same bugs through the plugin path as the built-in `qsacheck mutants` (backends.planted_bugs_*).
// Test-only: not installed, not an example to copy.

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "qsa/planted/catalog.hpp"
#include "qsacheck/plugin.h"

namespace {

using qsa::planted::Bug;

template <typename T>
const T* elements(const DLTensor& t) {
  return reinterpret_cast<const T*>(static_cast<const char*>(t.data) + t.byte_offset);
}
template <typename T>
T* mutable_elements(const DLTensor& t) {
  return reinterpret_cast<T*>(static_cast<char*>(t.data) + t.byte_offset);
}
int64_t count(const DLTensor& t) {
  int64_t n = 1;
  for (int32_t d = 0; d < t.ndim; ++d) n *= t.shape[d];
  return n;
}
template <typename From, typename To>
std::vector<To> copy_vector(const DLTensor& t) {
  const From* p = elements<From>(t);
  return std::vector<To>(p, p + count(t));
}

// A block table keeps its strides (a planted bug may read it as if it had others): the storage is
// the span its rows and columns cover.
qsa::BlockTable block_table(const DLTensor& t) {
  qsa::BlockTable table;
  table.rows = t.shape[0];
  table.cols = t.shape[1];
  table.row_stride = t.strides != nullptr ? t.strides[0] : table.cols;
  table.col_stride = t.strides != nullptr ? t.strides[1] : 1;
  int64_t extent = 0;
  if (table.rows > 0 && table.cols > 0) extent = (table.rows - 1) * table.row_stride + (table.cols - 1) * table.col_stride + 1;
  const int32_t* p = elements<int32_t>(t);
  table.storage.assign(p, p + extent);
  return table;
}

qsa::Batch batch(const QsaPluginBatch& b) {
  qsa::Batch out;
  out.num_actual_tokens = b.num_actual_tokens;
  out.reorder_batch_threshold = b.reorder_batch_threshold;
  out.query_start_loc = copy_vector<int32_t, int64_t>(b.query_start_loc);
  out.seq_lens = copy_vector<int32_t, int64_t>(b.seq_lens);
  out.common_slot_mapping = copy_vector<int64_t, int64_t>(b.common_slot_mapping);
  return out;
}

// A cache tensor [blocks, rows, width] with strides (block, row, 1), its bytes copied in.
qsa::CacheBuffer cache(const DLTensor& t, int element_bytes) {
  qsa::CacheBuffer c;
  c.layout.num_blocks = t.shape[0];
  c.layout.rows = t.shape[1];
  c.layout.width = t.shape[2];
  c.layout.row_stride = t.strides != nullptr ? t.strides[1] : c.layout.width;
  c.layout.block_stride = t.strides != nullptr ? t.strides[0] : c.layout.rows * c.layout.row_stride;
  c.layout.element_bytes = element_bytes;
  c.bytes.assign(static_cast<size_t>(c.layout.size_bytes()), 0);
  std::memcpy(c.bytes.data(), elements<uint8_t>(t), c.bytes.size());
  return c;
}

template <typename T>
void write(const std::vector<T>& from, const DLTensor& to) {
  const size_t n = std::min(from.size(), static_cast<size_t>(count(to)));
  std::copy(from.begin(), from.begin() + static_cast<std::ptrdiff_t>(n), mutable_elements<T>(to));
}

int32_t code(qsa::Status status, const qsa::Error& error, QsaPluginError* out) {
  if (status == qsa::Status::kOk) return QSA_PLUGIN_OK;
  std::snprintf(out->field, sizeof out->field, "%s", error.field.c_str());
  out->index = error.index;
  std::snprintf(out->rule, sizeof out->rule, "%s", error.rule.c_str());
  std::snprintf(out->message, sizeof out->message, "%s", error.message.c_str());
  return status == qsa::Status::kInvalidInput    ? QSA_PLUGIN_INVALID_INPUT
         : status == qsa::Status::kNotImplemented ? QSA_PLUGIN_UNSUPPORTED
                                                  : QSA_PLUGIN_INTERNAL;
}

std::vector<QsaPluginVariant> make_variants() {
  std::vector<QsaPluginVariant> variants;
  for (const qsa::planted::PlantedInfo& info : qsa::planted::catalog())
    variants.push_back({info.name.c_str() + 4, info.description.c_str()});  // past "bug:"
  return variants;
}
const std::vector<QsaPluginVariant>& variants() {
  static const std::vector<QsaPluginVariant> v = make_variants();
  return v;
}

int32_t create(const QsaPluginInstanceArgs* args, void** instance, QsaPluginError* error) {
  Bug bug = Bug::kNoBug;
  if (args->variant != nullptr) {
    const auto& catalog = qsa::planted::catalog();
    const auto it = std::find_if(catalog.begin(), catalog.end(), [&](const qsa::planted::PlantedInfo& info) {
      return info.name == std::string("bug:") + args->variant;
    });
    if (it == catalog.end()) {
      std::snprintf(error->message, sizeof error->message, "no variant %s", args->variant);
      return QSA_PLUGIN_INTERNAL;
    }
    bug = it->bug;
  }
  *instance = qsa::planted::make_planted_backend(bug).release();
  return QSA_PLUGIN_OK;
}

void destroy(void* instance) { delete static_cast<qsa::Backend*>(instance); }

int32_t build_metadata(void* instance, const QsaPluginMetadataArgs* args, QsaPluginError* error) {
  qsa::MetadataInput in;
  in.batch = batch(args->batch);
  in.cache.kind = args->cache_kind == QSA_PLUGIN_KIND_ID_COMPRESSED ? qsa::CacheKind::kCompressed
                  : args->cache_kind == QSA_PLUGIN_KIND_ID_RING     ? qsa::CacheKind::kRing
                                                                    : qsa::CacheKind::kPassthrough;
  in.cache.compress_ratio = args->compress_ratio;
  in.cache.storage_block_size = args->storage_block_size;
  in.cache.ring_capacity = args->ring_capacity;
  in.block_table = block_table(args->block_table);
  qsa::MetadataOutput out;
  qsa::Error e;
  const qsa::Status status = static_cast<qsa::Backend*>(instance)->build_metadata(in, &out, &e);
  if (status != qsa::Status::kOk) return code(status, e, error);
  const QsaPluginMetadata& m = args->out;
  write(out.token_to_req, m.token_to_req);
  write(out.logical_positions, m.logical_positions);
  write(out.visible_blocks, m.visible_blocks);
  write(out.slot_mapping, m.slot_mapping);
  write(out.k_work_metadata, m.k_work_metadata);
  const qsa::BatchSplit& s = out.split;
  *m.split = QsaBatchSplit{s.num_decodes,    s.num_decode_tokens, s.num_prefills, s.num_prefill_tokens,
                           s.max_query_len, s.decode_query_len,  s.max_seq_len};
  return QSA_PLUGIN_OK;
}

int32_t step_update(void* instance, const QsaPluginStepArgs* args, QsaPluginError* error) {
  qsa::StepInput in;
  qsa::StepConfig& c = in.config;
  c.compress_ratio = args->compress_ratio;
  c.storage_block_size = args->storage_block_size;
  c.ring_capacity = args->ring_capacity;
  c.head_dim = args->head_dim;
  c.rotary_dim = args->rotary_dim;
  c.num_heads = args->num_heads;
  c.eps = args->eps;
  if (args->has_mrope != 0)
    c.mrope_sections = std::array<int64_t, 3>{args->mrope_sections[0], args->mrope_sections[1], args->mrope_sections[2]};
  c.ring_positions = args->ring_positions != 0;
  c.store_dtype = args->store_dtype == QSA_PLUGIN_STORE_BF16 ? qsa::StoreDtype::kBf16 : qsa::StoreDtype::kFp8E4m3;
  c.max_position = args->max_position;
  c.cos_sin = std::make_shared<const std::vector<qsa::Bf16>>(copy_vector<uint16_t, qsa::Bf16>(args->cos_sin));
  c.w_k = copy_vector<uint16_t, qsa::Bf16>(args->w_k);
  c.w_q = copy_vector<uint16_t, qsa::Bf16>(args->w_q);
  in.batch = batch(args->batch);
  in.block_table = block_table(args->block_table);
  in.ring_block_table = block_table(args->ring_block_table);
  in.keys = copy_vector<uint16_t, qsa::Bf16>(args->keys);
  in.queries = copy_vector<uint16_t, qsa::Bf16>(args->queries);
  in.position_axes = args->positions.ndim == 2 ? 3 : 1;
  in.positions = copy_vector<int64_t, int64_t>(args->positions);
  qsa::StepCaches caches;
  caches.ring = cache(args->ring_cache, 2);
  caches.compressed = cache(args->compressed_cache, qsa::element_bytes(c.store_dtype));
  qsa::StepOutput out = qsa::make_poisoned_step_output(in);
  qsa::Error e;
  const qsa::Status status = static_cast<qsa::Backend*>(instance)->step_update(in, &caches, &out, &e);
  if (status != qsa::Status::kOk) return code(status, e, error);
  std::memcpy(mutable_elements<uint8_t>(args->ring_cache), caches.ring.bytes.data(), caches.ring.bytes.size());
  std::memcpy(mutable_elements<uint8_t>(args->compressed_cache), caches.compressed.bytes.data(),
              caches.compressed.bytes.size());
  const size_t q_bytes = static_cast<size_t>(count(args->q_out)) * static_cast<size_t>(qsa::element_bytes(c.store_dtype));
  std::memcpy(mutable_elements<uint8_t>(args->q_out), out.q_out.data(), std::min(q_bytes, out.q_out.size()));
  *mutable_elements<int32_t>(args->step_status) = out.step_status == qsa::StepStatus::kOk
                                                      ? QSA_PLUGIN_STEP_OK
                                                      : out.step_status == qsa::StepStatus::kPositionOutOfRange
                                                            ? QSA_PLUGIN_STEP_POSITION_OUT_OF_RANGE
                                                            : static_cast<int32_t>(out.step_status);
  return QSA_PLUGIN_OK;
}

const QsaPluginCapabilities kCapabilities = {
    sizeof(QsaPluginCapabilities),
    QSA_PLUGIN_MEMORY_HOST,
    QSA_PLUGIN_KIND_COMPRESSED | QSA_PLUGIN_KIND_RING | QSA_PLUGIN_KIND_PASSTHROUGH,
    QSA_PLUGIN_DTYPE_BF16 | QSA_PLUGIN_DTYPE_FP8_E4M3,
    QSA_PLUGIN_FEATURE_STEP_UPDATE | QSA_PLUGIN_FEATURE_MROPE | QSA_PLUGIN_FEATURE_RING_POSITIONS |
        QSA_PLUGIN_FEATURE_STRIDED_BLOCK_TABLE | QSA_PLUGIN_FEATURE_PADDED_CACHE_STRIDES |
        QSA_PLUGIN_FEATURE_CONCURRENT_INSTANCES,
    {32, 512},
    {2, 512},
    {1, 1024},
    {2, 1024},
    {1, 1 << 20},
    {1, 1 << 20},
    {},
    0};

QsaPlugin make_plugin() {
  return {QSA_PLUGIN_ABI_MAJOR,
          QSA_PLUGIN_ABI_MINOR,
          sizeof(QsaPlugin),
          "planted-cpu",
          "1",
          "backends/tests/plugins/planted_plugin.cpp: the CPU planted set",
          &kCapabilities,
          variants().data(),
          static_cast<int32_t>(variants().size()),
          create,
          destroy,
          build_metadata,
          step_update};
}

}  // namespace

extern "C" QSA_PLUGIN_EXPORT const QsaPlugin* qsa_plugin_entry(void) {
  static const QsaPlugin plugin = make_plugin();
  return &plugin;
}
