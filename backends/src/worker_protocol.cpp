#include "qsa/backends/worker_protocol.hpp"

#include <utility>

namespace qsa::backends {
namespace {

using nlohmann::json;

const std::pair<uint32_t, const char*> kKinds[] = {{QSA_PLUGIN_KIND_COMPRESSED, "compressed"},
                                                   {QSA_PLUGIN_KIND_RING, "ring"},
                                                   {QSA_PLUGIN_KIND_PASSTHROUGH, "passthrough"}};
const std::pair<uint32_t, const char*> kDtypes[] = {{QSA_PLUGIN_DTYPE_BF16, "bf16"},
                                                    {QSA_PLUGIN_DTYPE_FP8_E4M3, "fp8_e4m3"}};
// A worker is its own process: one per backend, never captured in a graph; these are the rest.
const std::pair<uint32_t, const char*> kFeatures[] = {
    {QSA_PLUGIN_FEATURE_STEP_UPDATE, "step_update"},
    {QSA_PLUGIN_FEATURE_MROPE, "mrope"},
    {QSA_PLUGIN_FEATURE_RING_POSITIONS, "ring_positions"},
    {QSA_PLUGIN_FEATURE_STRIDED_BLOCK_TABLE, "strided_block_table"},
    {QSA_PLUGIN_FEATURE_PADDED_CACHE_STRIDES, "padded_cache_strides"},
    {QSA_PLUGIN_FEATURE_STEP_USES_METADATA, "step_uses_metadata"}};  // protocol 2; never by default

struct RangeField {
  const char* name;
  QsaPluginRange QsaPluginCapabilities::*member;
  QsaPluginRange whole;  // SPEC's limits (1.3, 1.4 and docs/decisions.md)
};
const RangeField kRanges[] = {
    {"head_dim", &QsaPluginCapabilities::head_dim, {32, 512}},
    {"rotary_dim", &QsaPluginCapabilities::rotary_dim, {2, 512}},
    {"num_heads", &QsaPluginCapabilities::num_heads, {1, 1024}},
    {"compress_ratio", &QsaPluginCapabilities::compress_ratio, {1, kMaxCompressRatio}},
    {"storage_block_size", &QsaPluginCapabilities::storage_block_size, {1, kMaxStorageBlockSize}},
    {"ring_capacity", &QsaPluginCapabilities::ring_capacity, {1, kMaxRingCapacity}}};

const char* const kHalfHeadDim = "rotary_dim_is_half_head_dim";
const std::pair<const char*, int64_t KernelConstraints::*> kMaxima[] = {
    {"max_requests", &KernelConstraints::max_requests},
    {"max_tokens", &KernelConstraints::max_tokens},
    {"max_slot", &KernelConstraints::max_slot},
    {"max_block_id", &KernelConstraints::max_block_id}};
const char* const kProtocol2Keys[] = {"power_of_two", "values",   "relations",    "head_dims", "max_requests",
                                      "max_tokens",   "max_slot", "max_block_id", "deviations"};

template <size_t N>
json names_of(uint32_t bits, const std::pair<uint32_t, const char*> (&table)[N]) {
  json out = json::array();
  for (const auto& [bit, name] : table)
    if ((bits & bit) != 0) out.push_back(name);
  return out;
}

template <size_t N>
bool bits_of(const json& j, const char* field, const std::pair<uint32_t, const char*> (&table)[N], uint32_t* bits,
             std::string* why) {
  *bits = 0;
  if (!j.contains(field)) return true;
  if (!j[field].is_array()) return *why = std::string(field) + " is not a list", false;
  for (const json& name : j[field]) {
    bool known = false;
    for (const auto& [bit, text] : table)
      if (name.is_string() && name.get<std::string>() == text) *bits |= bit, known = true;
    if (!known) return *why = std::string(field) + " holds " + name.dump() + ", which is not one of its names", false;
  }
  return true;
}

const std::pair<const char*, int> kDtypeSizes[] = {{"int32", 4}, {"int64", 8}, {"bfloat16", 2}, {"uint8", 1}};

}  // namespace

json to_json(const BufferRef& b) {
  json j = {{"offset", b.offset}, {"bytes", b.bytes}, {"dtype", b.dtype}, {"shape", b.shape}};
  if (!b.strides.empty()) j["strides"] = b.strides;
  return j;
}

bool buffer_from_json(const json& j, size_t shm_bytes, BufferRef* b, std::string* why) {
  try {
    b->offset = j.at("offset").get<int64_t>();
    b->bytes = j.at("bytes").get<int64_t>();
    b->dtype = j.at("dtype").get<std::string>();
    b->shape = j.at("shape").get<std::vector<int64_t>>();
    b->strides = j.contains("strides") ? j["strides"].get<std::vector<int64_t>>() : std::vector<int64_t>{};
  } catch (const json::exception& e) {
    return *why = std::string("bad buffer description: ") + e.what(), false;
  }
  bool known = false;
  for (const auto& [name, size] : kDtypeSizes) known = known || b->dtype == name;
  if (!known) return *why = "unknown dtype " + b->dtype, false;
  if (b->offset < 0 || b->bytes < 0 || static_cast<uint64_t>(b->offset) + static_cast<uint64_t>(b->bytes) > shm_bytes)
    return *why = "buffer [" + std::to_string(b->offset) + ", +" + std::to_string(b->bytes) +
                  ") lies outside the shared memory of " + std::to_string(shm_bytes) + " bytes",
           false;
  return true;
}

size_t ShmPlan::place(size_t bytes) {
  const size_t offset = (end_ + kShmAlignment - 1) / kShmAlignment * kShmAlignment;
  end_ = offset + bytes;
  return offset;
}

json capabilities_to_json(const KernelDeclaration& kernel) {
  const QsaPluginCapabilities& caps = kernel.capabilities;
  json j = {{"cache_kinds", names_of(caps.cache_kinds, kKinds)},
            {"store_dtypes", names_of(caps.store_dtypes, kDtypes)},
            {"features", names_of(caps.features, kFeatures)}};
  for (const RangeField& r : kRanges) j[r.name] = {(caps.*r.member).min, (caps.*r.member).max};
  // Protocol 2: the constraints and deviations, only those declared.
  const KernelConstraints& c = kernel.constraints;
  json powers = json::array(), values = json::object();
  for (int p = 0; p < QSA_PLUGIN_NUM_PARAMS; ++p) {
    if (c.power_of_two[static_cast<size_t>(p)]) powers.push_back(parameter_name(p));
    if (!c.values[static_cast<size_t>(p)].empty()) values[parameter_name(p)] = c.values[static_cast<size_t>(p)];
  }
  if (!powers.empty()) j["power_of_two"] = powers;
  if (!values.empty()) j["values"] = values;
  if (c.rotary_dim_is_half_head_dim) j["relations"] = {kHalfHeadDim};
  if (!c.head_dims.empty()) {
    j["head_dims"] = json::array();
    for (const auto& [d, rd] : c.head_dims) j["head_dims"].push_back({d, rd});
  }
  for (const auto& [name, member] : kMaxima)
    if (c.*member > 0) j[name] = c.*member;
  if (kernel.deviations.any()) j["deviations"] = kernel.deviations.names();
  return j;
}

namespace {

bool positive_integer_list(const json& v) {
  if (!v.is_array() || v.empty() || v.size() > static_cast<size_t>(kMaxDeclaredValues)) return false;
  for (const json& x : v)
    if (!x.is_number_integer() || x.get<int64_t>() < 1) return false;
  return true;
}

int parameter_of(const json& name) {
  for (int p = 0; p < QSA_PLUGIN_NUM_PARAMS; ++p)
    if (name.is_string() && name.get<std::string>() == parameter_name(p)) return p;
  return -1;
}

// The protocol-2 keys of the capabilities: the constraints and the deviations.
bool constraints_from_json(const json& j, KernelDeclaration* kernel, std::string* why) {
  KernelConstraints& c = kernel->constraints;
  if (j.contains("power_of_two")) {
    if (!j["power_of_two"].is_array()) return *why = "power_of_two is not a list", false;
    for (const json& name : j["power_of_two"]) {
      const int p = parameter_of(name);
      if (p < 0) return *why = "power_of_two holds " + name.dump() + ", which is not a parameter", false;
      c.power_of_two[static_cast<size_t>(p)] = true;
    }
  }
  if (j.contains("values")) {
    if (!j["values"].is_object()) return *why = "values is not an object of parameter lists", false;
    for (auto it = j["values"].begin(); it != j["values"].end(); ++it) {
      const int p = parameter_of(json(it.key()));
      if (p < 0) return *why = "values names \"" + it.key() + "\", which is not a parameter", false;
      if (!positive_integer_list(it.value()))
        return *why = "values." + it.key() + " is not a list of 1 ... 4096 positive integers", false;
      c.values[static_cast<size_t>(p)] = it.value().get<std::vector<int64_t>>();
    }
  }
  if (j.contains("relations")) {
    if (!j["relations"].is_array()) return *why = "relations is not a list", false;
    for (const json& name : j["relations"]) {
      if (!(name.is_string() && name.get<std::string>() == kHalfHeadDim))
        return *why = "relations holds " + name.dump() + " (known: \"" + kHalfHeadDim + "\")", false;
      c.rotary_dim_is_half_head_dim = true;
    }
  }
  if (j.contains("head_dims")) {
    const json& v = j["head_dims"];
    if (!v.is_array() || v.empty() || v.size() > static_cast<size_t>(kMaxDeclaredValues))
      return *why = "head_dims is not a list of 1 ... 4096 [D, rd] pairs", false;
    for (const json& pair : v) {
      if (!pair.is_array() || pair.size() != 2 || !positive_integer_list(pair))
        return *why = "head_dims holds " + pair.dump() + ", which is not [D, rd]", false;
      c.head_dims.emplace_back(pair[0].get<int64_t>(), pair[1].get<int64_t>());
    }
  }
  for (const auto& [name, member] : kMaxima) {
    if (!j.contains(name)) continue;
    if (!j[name].is_number_integer() || j[name].get<int64_t>() < 1)
      return *why = std::string(name) + " is not a positive integer", false;
    c.*member = j[name].get<int64_t>();
  }
  if (j.contains("deviations")) {
    if (!j["deviations"].is_array()) return *why = "deviations is not a list", false;
    for (const json& name : j["deviations"]) {
      if (!(name.is_string() && name.get<std::string>() == kNegativeSlotsPassThrough))
        return *why = "deviations holds " + name.dump() + " (known: \"" + kNegativeSlotsPassThrough + "\")", false;
      kernel->deviations.negative_slots_pass_through = true;
    }
  }
  return true;
}

}  // namespace

bool capabilities_from_json(const json& j, int protocol, KernelDeclaration* kernel, std::string* why) {
  if (!j.is_object()) return *why = "capabilities is not an object", false;
  *kernel = full_capabilities();
  QsaPluginCapabilities* caps = &kernel->capabilities;
  if (!bits_of(j, "cache_kinds", kKinds, &caps->cache_kinds, why) ||
      !bits_of(j, "store_dtypes", kDtypes, &caps->store_dtypes, why) ||
      !bits_of(j, "features", kFeatures, &caps->features, why))
    return false;
  if (caps->cache_kinds == 0) return *why = "cache_kinds names no cache kind", false;
  if ((caps->features & QSA_PLUGIN_FEATURE_STEP_USES_METADATA) != 0) {
    if (protocol < 2) return *why = "step_uses_metadata needs protocol 2", false;
    if ((caps->features & QSA_PLUGIN_FEATURE_STEP_UPDATE) == 0 ||
        (caps->cache_kinds & (QSA_PLUGIN_KIND_COMPRESSED | QSA_PLUGIN_KIND_RING)) !=
            (QSA_PLUGIN_KIND_COMPRESSED | QSA_PLUGIN_KIND_RING))
      return *why = "step_uses_metadata needs step_update and the compressed and ring kinds", false;
  }
  if ((caps->features & QSA_PLUGIN_FEATURE_STEP_UPDATE) != 0 && caps->store_dtypes == 0)
    return *why = "step_update without store_dtypes", false;
  for (const RangeField& r : kRanges) {
    if (!j.contains(r.name)) continue;
    const json& v = j[r.name];
    if (!v.is_array() || v.size() != 2 || !v[0].is_number_integer() || !v[1].is_number_integer() ||
        v[0].get<int64_t>() > v[1].get<int64_t>())
      return *why = std::string(r.name) + " is not [min, max] with min <= max", false;
    caps->*r.member = QsaPluginRange{v[0].get<int64_t>(), v[1].get<int64_t>()};
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool known = it.key() == "cache_kinds" || it.key() == "store_dtypes" || it.key() == "features";
    for (const RangeField& r : kRanges) known = known || it.key() == r.name;
    for (const char* key : kProtocol2Keys) known = known || (protocol >= 2 && it.key() == key);
    if (!known)
      return *why = "unknown capability \"" + it.key() + "\"" +
                    (protocol < 2 ? " (constraints and deviations need protocol 2)" : ""),
             false;
  }
  return protocol < 2 || constraints_from_json(j, kernel, why);
}

KernelDeclaration full_capabilities() {
  KernelDeclaration kernel;
  QsaPluginCapabilities& caps = kernel.capabilities;
  caps.struct_size = sizeof caps;
  caps.memory = QSA_PLUGIN_MEMORY_HOST;
  for (const auto& [bit, name] : kKinds) caps.cache_kinds |= bit;
  for (const auto& [bit, name] : kDtypes) caps.store_dtypes |= bit;
  for (const auto& [bit, name] : kFeatures) caps.features |= bit;
  caps.features &= ~uint32_t{QSA_PLUGIN_FEATURE_STEP_USES_METADATA};  // changes the step request: only when named
  caps.features |= QSA_PLUGIN_FEATURE_CONCURRENT_INSTANCES;  // one process per backend
  for (const RangeField& r : kRanges) caps.*r.member = r.whole;
  return kernel;
}

json split_to_json(const BatchSplit& s) {
  return {{"num_decodes", s.num_decodes},     {"num_decode_tokens", s.num_decode_tokens},
          {"num_prefills", s.num_prefills},   {"num_prefill_tokens", s.num_prefill_tokens},
          {"max_query_len", s.max_query_len}, {"decode_query_len", s.decode_query_len},
          {"max_seq_len", s.max_seq_len}};
}

bool split_from_json(const json& j, BatchSplit* s, std::string* why) {
  try {
    *s = BatchSplit{j.at("num_decodes").get<int64_t>(),   j.at("num_decode_tokens").get<int64_t>(),
                    j.at("num_prefills").get<int64_t>(),  j.at("num_prefill_tokens").get<int64_t>(),
                    j.at("max_query_len").get<int64_t>(), j.at("decode_query_len").get<int64_t>(),
                    j.at("max_seq_len").get<int64_t>()};
  } catch (const json::exception& e) {
    return *why = std::string("bad split: ") + e.what(), false;
  }
  return true;
}

std::string make_frame(const std::string& text) {
  std::string frame = "QSAW";
  const auto n = static_cast<uint32_t>(text.size());
  for (int i = 0; i < 4; ++i) frame += static_cast<char>((n >> (8 * i)) & 0xff);
  return frame + text;
}

}  // namespace qsa::backends
