#include "qsa/backends/plugin_capabilities.hpp"

#include <cstring>

namespace qsa::backends {
namespace {

std::string text(const char* chars, size_t capacity) { return std::string(chars, strnlen(chars, capacity)); }

std::string range_text(const QsaPluginRange& r) {
  return "[" + std::to_string(r.min) + ", " + std::to_string(r.max) + "]";
}

std::optional<std::string> outside(const char* name, int64_t value, const QsaPluginRange& r) {
  if (value >= r.min && value <= r.max) return std::nullopt;
  return std::string(name) + " " + std::to_string(value) + " (its capabilities admit " + range_text(r) + ")";
}

uint32_t kind_bit(CacheKind kind) {
  switch (kind) {
    case CacheKind::kCompressed:
      return QSA_PLUGIN_KIND_COMPRESSED;
    case CacheKind::kRing:
      return QSA_PLUGIN_KIND_RING;
    case CacheKind::kPassthrough:
      return QSA_PLUGIN_KIND_PASSTHROUGH;
  }
  return 0;
}

bool has(uint32_t features, uint32_t bit) { return (features & bit) != 0; }

}  // namespace

Status failed_call_status(int32_t code, const QsaPluginError& e, const std::string& name, const char* call,
                          Error* error) {
  const std::string message = text(e.message, sizeof e.message);
  switch (code) {
    case QSA_PLUGIN_INVALID_INPUT:
      *error = Error{text(e.field, sizeof e.field), e.index, text(e.rule, sizeof e.rule), message};
      return Status::kInvalidInput;
    case QSA_PLUGIN_UNSUPPORTED:
      *error = Error{"plugin", -1, "declined-admitted-input",
                     name + " " + call + " answered UNSUPPORTED for an input its capabilities admit: " + message};
      return Status::kInternalError;
    case QSA_PLUGIN_DEVICE_ERROR:
      *error = Error{"plugin", -1, "device-error", name + " " + call + ": " + message};
      return Status::kDeviceError;
    default:
      *error = Error{"plugin", -1, "plugin-error",
                     name + " " + call + " returned code " + std::to_string(code) + ": " + message};
      return Status::kInternalError;
  }
}

bool is_strided(const BlockTable& t) {
  if (t.rows <= 0 || t.cols <= 0) return false;
  return t.col_stride != 1 || (t.rows > 1 && t.row_stride != t.cols);
}

bool is_padded(const CacheLayout& l) { return l.row_stride != l.width || l.block_stride != l.rows * l.row_stride; }

std::optional<std::string> missing_for_metadata(const QsaPluginCapabilities& caps, const MetadataInput& in) {
  if ((caps.cache_kinds & kind_bit(in.cache.kind)) == 0) return std::string("cache kind ") + to_string(in.cache.kind);
  if (in.cache.kind == CacheKind::kCompressed) {
    if (auto m = outside("compress_ratio", in.cache.compress_ratio.value_or(0), caps.compress_ratio)) return m;
    if (auto m = outside("storage_block_size", in.cache.storage_block_size, caps.storage_block_size)) return m;
  }
  if (in.cache.kind == CacheKind::kRing)
    if (auto m = outside("ring_capacity", in.cache.ring_capacity, caps.ring_capacity)) return m;
  if (is_strided(in.block_table) && !has(caps.features, QSA_PLUGIN_FEATURE_STRIDED_BLOCK_TABLE))
    return std::string("strided block tables");
  return std::nullopt;
}

std::optional<std::string> missing_for_step(const QsaPluginCapabilities& caps, const StepInput& in,
                                            const StepCaches& caches) {
  if (!has(caps.features, QSA_PLUGIN_FEATURE_STEP_UPDATE)) return std::string("the step update");
  const StepConfig& c = in.config;
  if (c.store_dtype == StoreDtype::kBf16 && (caps.store_dtypes & QSA_PLUGIN_DTYPE_BF16) == 0)
    return std::string("store dtype bf16");
  if (c.store_dtype == StoreDtype::kFp8E4m3 && (caps.store_dtypes & QSA_PLUGIN_DTYPE_FP8_E4M3) == 0)
    return std::string("store dtype fp8_e4m3");
  if (auto m = outside("head_dim", c.head_dim, caps.head_dim)) return m;
  if (auto m = outside("rotary_dim", c.rotary_dim, caps.rotary_dim)) return m;
  if (auto m = outside("num_heads", c.num_heads, caps.num_heads)) return m;
  if (auto m = outside("compress_ratio", c.compress_ratio, caps.compress_ratio)) return m;
  if (auto m = outside("storage_block_size", c.storage_block_size, caps.storage_block_size)) return m;
  if (auto m = outside("ring_capacity", c.ring_capacity, caps.ring_capacity)) return m;
  if ((c.mrope_sections || in.position_axes == 3) && !has(caps.features, QSA_PLUGIN_FEATURE_MROPE))
    return std::string("MRoPE (3-axis positions)");
  if (c.ring_positions && !has(caps.features, QSA_PLUGIN_FEATURE_RING_POSITIONS))
    return std::string("ring position tails");
  if ((is_strided(in.block_table) || is_strided(in.ring_block_table)) &&
      !has(caps.features, QSA_PLUGIN_FEATURE_STRIDED_BLOCK_TABLE))
    return std::string("strided block tables");
  if ((is_padded(caches.ring.layout) || is_padded(caches.compressed.layout)) &&
      !has(caps.features, QSA_PLUGIN_FEATURE_PADDED_CACHE_STRIDES))
    return std::string("padded cache strides");
  if (has(caps.features, QSA_PLUGIN_FEATURE_STEP_USES_METADATA)) {
    if (auto m = missing_for_metadata(caps, in.compressed_metadata_input())) return m;
    if (auto m = missing_for_metadata(caps, in.ring_metadata_input())) return m;
  }
  return std::nullopt;
}

std::vector<std::pair<std::string, std::string>> describe_capabilities(const QsaPluginCapabilities& caps) {
  auto list = [](std::initializer_list<std::pair<bool, const char*>> items) {
    std::string out;
    for (const auto& [on, name] : items)
      if (on) out += (out.empty() ? "" : ",") + std::string(name);
    return out.empty() ? std::string("none") : out;
  };
  const uint32_t f = caps.features;
  return {
      {"memory", caps.memory == QSA_PLUGIN_MEMORY_CUDA ? "cuda" : "host"},
      {"cache_kinds", list({{(caps.cache_kinds & QSA_PLUGIN_KIND_COMPRESSED) != 0, "compressed"},
                            {(caps.cache_kinds & QSA_PLUGIN_KIND_RING) != 0, "ring"},
                            {(caps.cache_kinds & QSA_PLUGIN_KIND_PASSTHROUGH) != 0, "passthrough"}})},
      {"step_update", has(f, QSA_PLUGIN_FEATURE_STEP_UPDATE) ? "yes" : "no"},
      {"store_dtypes", list({{(caps.store_dtypes & QSA_PLUGIN_DTYPE_BF16) != 0, "bf16"},
                             {(caps.store_dtypes & QSA_PLUGIN_DTYPE_FP8_E4M3) != 0, "fp8_e4m3"}})},
      {"head_dim", range_text(caps.head_dim)},
      {"rotary_dim", range_text(caps.rotary_dim)},
      {"num_heads", range_text(caps.num_heads)},
      {"compress_ratio", range_text(caps.compress_ratio)},
      {"storage_block_size", range_text(caps.storage_block_size)},
      {"ring_capacity", range_text(caps.ring_capacity)},
      {"features", list({{has(f, QSA_PLUGIN_FEATURE_MROPE), "mrope"},
                         {has(f, QSA_PLUGIN_FEATURE_RING_POSITIONS), "ring-positions"},
                         {has(f, QSA_PLUGIN_FEATURE_STRIDED_BLOCK_TABLE), "strided-block-tables"},
                         {has(f, QSA_PLUGIN_FEATURE_PADDED_CACHE_STRIDES), "padded-cache-strides"},
                         {has(f, QSA_PLUGIN_FEATURE_GRAPH_CAPTURABLE), "graph-capturable"},
                         {has(f, QSA_PLUGIN_FEATURE_CONCURRENT_INSTANCES), "concurrent-instances"},
                         {has(f, QSA_PLUGIN_FEATURE_STEP_USES_METADATA), "step-uses-metadata"}})},
  };
}

}  // namespace qsa::backends
