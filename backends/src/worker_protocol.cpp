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
    {QSA_PLUGIN_FEATURE_PADDED_CACHE_STRIDES, "padded_cache_strides"}};

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

json capabilities_to_json(const QsaPluginCapabilities& caps) {
  json j = {{"cache_kinds", names_of(caps.cache_kinds, kKinds)},
            {"store_dtypes", names_of(caps.store_dtypes, kDtypes)},
            {"features", names_of(caps.features, kFeatures)}};
  for (const RangeField& r : kRanges) j[r.name] = {(caps.*r.member).min, (caps.*r.member).max};
  return j;
}

bool capabilities_from_json(const json& j, QsaPluginCapabilities* caps, std::string* why) {
  if (!j.is_object()) return *why = "capabilities is not an object", false;
  *caps = full_capabilities();
  if (!bits_of(j, "cache_kinds", kKinds, &caps->cache_kinds, why) ||
      !bits_of(j, "store_dtypes", kDtypes, &caps->store_dtypes, why) ||
      !bits_of(j, "features", kFeatures, &caps->features, why))
    return false;
  if (caps->cache_kinds == 0) return *why = "cache_kinds names no cache kind", false;
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
    if (!known) return *why = "unknown capability \"" + it.key() + "\"", false;
  }
  return true;
}

QsaPluginCapabilities full_capabilities() {
  QsaPluginCapabilities caps{};
  caps.struct_size = sizeof caps;
  caps.memory = QSA_PLUGIN_MEMORY_HOST;
  for (const auto& [bit, name] : kKinds) caps.cache_kinds |= bit;
  for (const auto& [bit, name] : kDtypes) caps.store_dtypes |= bit;
  for (const auto& [bit, name] : kFeatures) caps.features |= bit;
  caps.features |= QSA_PLUGIN_FEATURE_CONCURRENT_INSTANCES;  // one process per backend
  for (const RangeField& r : kRanges) caps.*r.member = r.whole;
  return caps;
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
