#include "qsa/backends/plugin_capabilities.hpp"

#include <algorithm>
#include <cstddef>
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

bool is_power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// The first constraint of `parameter` that `value` breaks (its range, a power of two, a value set).
std::optional<std::string> outside_constraints(const KernelDeclaration& k, int parameter, int64_t value,
                                               const QsaPluginRange& range) {
  const char* name = parameter_name(parameter);
  if (auto m = outside(name, value, range)) return m;
  const KernelConstraints& c = k.constraints;
  if (c.power_of_two[static_cast<size_t>(parameter)] && !is_power_of_two(value))
    return std::string(name) + " " + std::to_string(value) + " (it declares powers of two only)";
  const std::vector<int64_t>& values = c.values[static_cast<size_t>(parameter)];
  if (!values.empty() && std::find(values.begin(), values.end(), value) == values.end()) {
    std::string list;
    for (int64_t v : values) list += (list.empty() ? "" : ", ") + std::to_string(v);
    return std::string(name) + " " + std::to_string(value) + " (it declares only " + list + ")";
  }
  return std::nullopt;
}

std::optional<std::string> outside_head_dims(const KernelConstraints& c, int64_t head_dim, int64_t rotary_dim) {
  const std::string pair = "D " + std::to_string(head_dim) + " with rd " + std::to_string(rotary_dim);
  if (c.rotary_dim_is_half_head_dim && rotary_dim * 2 != head_dim) return pair + " (it declares rd = D / 2)";
  if (!c.head_dims.empty() &&
      std::find(c.head_dims.begin(), c.head_dims.end(), std::make_pair(head_dim, rotary_dim)) == c.head_dims.end())
    return pair + " (not one of its declared (D, rd) pairs)";
  return std::nullopt;
}

std::optional<std::string> above(const char* what, int64_t value, int64_t limit) {
  if (limit <= 0 || value <= limit) return std::nullopt;
  return std::string(what) + " " + std::to_string(value) + " (it declares at most " + std::to_string(limit) + ")";
}

// The batch's sizes, the common slots it reads and the blocks and slots its table names against
// the declared maxima; `rows` is S or R (0 for passthrough: its slots are the common slots).
std::optional<std::string> outside_batch_limits(const KernelConstraints& c, const Batch& batch,
                                                const BlockTable& table, int64_t rows) {
  if (auto m = above("NR", batch.num_requests(), c.max_requests)) return m;
  if (auto m = above("N", batch.num_actual_tokens, c.max_tokens)) return m;
  const auto n = std::min<int64_t>(batch.num_actual_tokens, static_cast<int64_t>(batch.common_slot_mapping.size()));
  int64_t common = -1;
  for (int64_t t = 0; t < n; ++t) common = std::max(common, batch.common_slot_mapping[static_cast<size_t>(t)]);
  if (auto m = above("common slot", common, c.max_slot)) return m;
  if (c.max_block_id <= 0 && (c.max_slot <= 0 || rows == 0)) return std::nullopt;
  int64_t block = -1;
  const int64_t used_rows = std::min(batch.num_requests(), table.rows);
  for (int64_t r = 0; r < used_rows; ++r)
    for (int64_t col = 0; col < table.cols; ++col) block = std::max<int64_t>(block, table.at(r, col));
  if (auto m = above("block id", block, c.max_block_id)) return m;
  if (rows > 0 && block >= 0) return above("slot", block * rows + rows - 1, c.max_slot);
  return std::nullopt;
}

}  // namespace

const char* parameter_name(int parameter) {
  static const char* const names[QSA_PLUGIN_NUM_PARAMS] = {"head_dim",       "rotary_dim",         "num_heads",
                                                           "compress_ratio", "storage_block_size", "ring_capacity"};
  return parameter >= 0 && parameter < QSA_PLUGIN_NUM_PARAMS ? names[parameter] : "unknown";
}

bool KernelConstraints::empty() const {
  for (size_t p = 0; p < power_of_two.size(); ++p)
    if (power_of_two[p] || !values[p].empty()) return false;
  return !rotary_dim_is_half_head_dim && head_dims.empty() && max_requests == 0 && max_tokens == 0 &&
         max_slot == 0 && max_block_id == 0;
}

KernelDeclaration read_declaration(const QsaPluginCapabilities& caps, std::vector<std::string>* problems) {
  KernelDeclaration k;
  // Only what the plugin's struct_size covers: a 1.0 plugin's table ends before the constraints.
  std::memcpy(&k.capabilities, &caps, std::min<size_t>(caps.struct_size, sizeof caps));
  k.capabilities.struct_size = sizeof caps;
  k.capabilities.constraints = QsaPluginConstraints{};
  k.capabilities.deviations = 0;
  const bool has_constraints = caps.struct_size >= offsetof(QsaPluginCapabilities, constraints) + sizeof caps.constraints;
  const bool has_deviations = caps.struct_size >= offsetof(QsaPluginCapabilities, deviations) + sizeof caps.deviations;
  if (has_deviations) {
    if ((caps.deviations & ~uint32_t{QSA_PLUGIN_DEVIATION_NEGATIVE_SLOTS_PASS_THROUGH}) != 0)
      problems->push_back("capabilities.deviations has unknown bits");
    k.deviations.negative_slots_pass_through = (caps.deviations & QSA_PLUGIN_DEVIATION_NEGATIVE_SLOTS_PASS_THROUGH) != 0;
  }
  if (!has_constraints) return k;
  const QsaPluginConstraints& c = caps.constraints;
  KernelConstraints& out = k.constraints;
  if ((c.power_of_two >> QSA_PLUGIN_NUM_PARAMS) != 0)
    problems->push_back("constraints.power_of_two has bits past the last parameter");
  for (int p = 0; p < QSA_PLUGIN_NUM_PARAMS; ++p) out.power_of_two[static_cast<size_t>(p)] = ((c.power_of_two >> p) & 1u) != 0;
  if ((c.relations & ~uint32_t{QSA_PLUGIN_RELATION_ROTARY_DIM_IS_HALF_HEAD_DIM}) != 0)
    problems->push_back("constraints.relations has unknown bits");
  out.rotary_dim_is_half_head_dim = (c.relations & QSA_PLUGIN_RELATION_ROTARY_DIM_IS_HALF_HEAD_DIM) != 0;
  const std::pair<const char*, int64_t> maxima[] = {{"max_requests", c.max_requests},
                                                    {"max_tokens", c.max_tokens},
                                                    {"max_slot", c.max_slot},
                                                    {"max_block_id", c.max_block_id}};
  for (const auto& [name, value] : maxima)
    if (value < 0) problems->push_back(std::string("constraints.") + name + " is negative");
  out.max_requests = c.max_requests;
  out.max_tokens = c.max_tokens;
  out.max_slot = c.max_slot;
  out.max_block_id = c.max_block_id;
  if (c.num_value_sets < 0 || c.num_value_sets > QSA_PLUGIN_NUM_PARAMS || (c.num_value_sets > 0 && !c.value_sets)) {
    problems->push_back("constraints.num_value_sets is " + std::to_string(c.num_value_sets) +
                        " (0 ... 6, with a value_sets array)");
  } else {
    for (int32_t i = 0; i < c.num_value_sets; ++i) {
      const QsaPluginValueSet& set = c.value_sets[i];
      const std::string where = "constraints.value_sets[" + std::to_string(i) + "]";
      if (set.parameter >= QSA_PLUGIN_NUM_PARAMS) {
        problems->push_back(where + " names parameter " + std::to_string(set.parameter) + " (0 ... 5)");
      } else if (set.num_values < 1 || set.num_values > kMaxDeclaredValues || set.values == nullptr) {
        problems->push_back(where + " has " + std::to_string(set.num_values) + " values (1 ... 4096, non-NULL)");
      } else if (!out.values[set.parameter].empty()) {
        problems->push_back(where + " names " + parameter_name(static_cast<int>(set.parameter)) + " a second time");
      } else {
        out.values[set.parameter].assign(set.values, set.values + set.num_values);
      }
    }
  }
  if (c.num_head_dims < 0 || c.num_head_dims > kMaxDeclaredValues || (c.num_head_dims > 0 && !c.head_dims)) {
    problems->push_back("constraints.num_head_dims is " + std::to_string(c.num_head_dims) +
                        " (0 ... 4096, with a head_dims array)");
  } else {
    for (int32_t i = 0; i < c.num_head_dims; ++i)
      out.head_dims.emplace_back(c.head_dims[i].head_dim, c.head_dims[i].rotary_dim);
  }
  return k;
}

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

std::optional<std::string> missing_for_metadata(const KernelDeclaration& k, const MetadataInput& in) {
  const QsaPluginCapabilities& caps = k.capabilities;
  if ((caps.cache_kinds & kind_bit(in.cache.kind)) == 0) return std::string("cache kind ") + to_string(in.cache.kind);
  int64_t rows = 0;
  if (in.cache.kind == CacheKind::kCompressed) {
    if (auto m = outside_constraints(k, QSA_PLUGIN_PARAM_COMPRESS_RATIO, in.cache.compress_ratio.value_or(0),
                                     caps.compress_ratio))
      return m;
    if (auto m = outside_constraints(k, QSA_PLUGIN_PARAM_STORAGE_BLOCK_SIZE, in.cache.storage_block_size,
                                     caps.storage_block_size))
      return m;
    rows = in.cache.storage_block_size;
  }
  if (in.cache.kind == CacheKind::kRing) {
    if (auto m = outside_constraints(k, QSA_PLUGIN_PARAM_RING_CAPACITY, in.cache.ring_capacity, caps.ring_capacity))
      return m;
    rows = in.cache.ring_capacity;
  }
  if (is_strided(in.block_table) && !has(caps.features, QSA_PLUGIN_FEATURE_STRIDED_BLOCK_TABLE))
    return std::string("strided block tables");
  return outside_batch_limits(k.constraints, in.batch, in.block_table, rows);
}

std::optional<std::string> missing_for_geometry(const KernelDeclaration& k, const StepGeometry& g) {
  const QsaPluginCapabilities& caps = k.capabilities;
  // Without a step update no geometry is better than another: each step's update is declined.
  if (!has(caps.features, QSA_PLUGIN_FEATURE_STEP_UPDATE)) return std::nullopt;
  if (g.store_dtype == StoreDtype::kBf16 && (caps.store_dtypes & QSA_PLUGIN_DTYPE_BF16) == 0)
    return std::string("store dtype bf16");
  if (g.store_dtype == StoreDtype::kFp8E4m3 && (caps.store_dtypes & QSA_PLUGIN_DTYPE_FP8_E4M3) == 0)
    return std::string("store dtype fp8_e4m3");
  const std::pair<int, int64_t> values[] = {{QSA_PLUGIN_PARAM_HEAD_DIM, g.head_dim},
                                            {QSA_PLUGIN_PARAM_ROTARY_DIM, g.rotary_dim},
                                            {QSA_PLUGIN_PARAM_NUM_HEADS, g.num_heads},
                                            {QSA_PLUGIN_PARAM_COMPRESS_RATIO, g.compress_ratio},
                                            {QSA_PLUGIN_PARAM_STORAGE_BLOCK_SIZE, g.storage_block_size},
                                            {QSA_PLUGIN_PARAM_RING_CAPACITY, g.ring_capacity}};
  const QsaPluginRange* ranges[] = {&caps.head_dim,       &caps.rotary_dim,         &caps.num_heads,
                                    &caps.compress_ratio, &caps.storage_block_size, &caps.ring_capacity};
  for (const auto& [parameter, value] : values)
    if (auto m = outside_constraints(k, parameter, value, *ranges[parameter])) return m;
  if (auto m = outside_head_dims(k.constraints, g.head_dim, g.rotary_dim)) return m;
  if (g.mrope && !has(caps.features, QSA_PLUGIN_FEATURE_MROPE)) return std::string("MRoPE (3-axis positions)");
  if (g.ring_positions && !has(caps.features, QSA_PLUGIN_FEATURE_RING_POSITIONS))
    return std::string("ring position tails");
  if (g.strided_block_tables && !has(caps.features, QSA_PLUGIN_FEATURE_STRIDED_BLOCK_TABLE))
    return std::string("strided block tables");
  if (g.padded_caches && !has(caps.features, QSA_PLUGIN_FEATURE_PADDED_CACHE_STRIDES))
    return std::string("padded cache strides");
  return std::nullopt;
}

namespace {

StepGeometry geometry_of(const StepInput& in, const StepCaches& caches) {
  const StepConfig& c = in.config;
  StepGeometry g;
  g.head_dim = c.head_dim;
  g.rotary_dim = c.rotary_dim;
  g.num_heads = c.num_heads;
  g.compress_ratio = c.compress_ratio;
  g.storage_block_size = c.storage_block_size;
  g.ring_capacity = c.ring_capacity;
  g.store_dtype = c.store_dtype;
  g.mrope = c.mrope_sections.has_value() || in.position_axes == 3;
  g.ring_positions = c.ring_positions;
  g.strided_block_tables = is_strided(in.block_table) || is_strided(in.ring_block_table);
  g.padded_caches = is_padded(caches.ring.layout) || is_padded(caches.compressed.layout);
  return g;
}

}  // namespace

std::optional<std::string> excluded_step(const KernelDeclaration& k, const StepInput& in, const StepCaches& caches) {
  if (auto m = missing_for_geometry(k, geometry_of(in, caches))) return m;
  if (auto m = outside_batch_limits(k.constraints, in.batch, in.block_table, in.config.storage_block_size)) return m;
  return outside_batch_limits(k.constraints, in.batch, in.ring_block_table, in.config.ring_capacity);
}

std::optional<std::string> missing_for_step(const KernelDeclaration& k, const StepInput& in, const StepCaches& caches) {
  if (!has(k.capabilities.features, QSA_PLUGIN_FEATURE_STEP_UPDATE)) return std::string("the step update");
  if (auto m = excluded_step(k, in, caches)) return m;
  if (has(k.capabilities.features, QSA_PLUGIN_FEATURE_STEP_USES_METADATA)) {
    if (auto m = missing_for_metadata(k, in.compressed_metadata_input())) return m;
    if (auto m = missing_for_metadata(k, in.ring_metadata_input())) return m;
  }
  return std::nullopt;
}

std::vector<std::pair<std::string, std::string>> describe_capabilities(const KernelDeclaration& kernel) {
  const QsaPluginCapabilities& caps = kernel.capabilities;
  auto list = [](std::initializer_list<std::pair<bool, const char*>> items) {
    std::string out;
    for (const auto& [on, name] : items)
      if (on) out += (out.empty() ? "" : ",") + std::string(name);
    return out.empty() ? std::string("none") : out;
  };
  const uint32_t f = caps.features;
  std::vector<std::pair<std::string, std::string>> out = {
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
  for (auto& line : describe_constraints(kernel)) out.push_back(std::move(line));
  return out;
}

std::vector<std::pair<std::string, std::string>> describe_constraints(const KernelDeclaration& kernel) {
  std::vector<std::pair<std::string, std::string>> out;
  const KernelConstraints& c = kernel.constraints;
  for (int p = 0; p < QSA_PLUGIN_NUM_PARAMS; ++p) {
    const auto i = static_cast<size_t>(p);
    if (c.power_of_two[i]) out.emplace_back(std::string(parameter_name(p)) + " constraint", "power of two");
    if (!c.values[i].empty()) {
      std::string list;
      for (int64_t v : c.values[i]) list += (list.empty() ? "" : ", ") + std::to_string(v);
      out.emplace_back(std::string(parameter_name(p)) + " values", "{" + list + "}");
    }
  }
  if (c.rotary_dim_is_half_head_dim) out.emplace_back("relation", "rotary_dim = head_dim / 2");
  if (!c.head_dims.empty()) {
    std::string list;
    for (const auto& [d, rd] : c.head_dims)
      list += (list.empty() ? "" : ", ") + std::string("(") + std::to_string(d) + ", " + std::to_string(rd) + ")";
    out.emplace_back("head_dims", list);
  }
  const std::pair<const char*, int64_t> maxima[] = {{"max_requests", c.max_requests},
                                                    {"max_tokens", c.max_tokens},
                                                    {"max_slot", c.max_slot},
                                                    {"max_block_id", c.max_block_id}};
  for (const auto& [name, value] : maxima)
    if (value > 0) out.emplace_back(name, std::to_string(value));
  const std::vector<std::string> deviations = kernel.deviations.names();
  std::string names;
  for (const std::string& d : deviations) names += (names.empty() ? "" : ",") + d;
  if (!names.empty()) out.emplace_back("deviations", names);
  return out;
}

}  // namespace qsa::backends
