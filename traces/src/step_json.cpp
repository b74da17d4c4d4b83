#include "qsa/traces/step_json.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <string>

#include "qsa/traces/json_codec.hpp"
#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/limits.hpp"

namespace qsa::traces {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& field, int64_t index, const std::string& rule, const std::string& message) {
  throw InputError(Error{field, index, rule, message});
}

// One row of `length` patterns, each in [0, max]; errors name `field` and `index`.
template <typename T>
void read_patterns(const json& value, const std::string& field, int64_t index, int64_t length, int64_t max,
                   std::vector<T>* out) {
  if (!value.is_array()) fail(field, index, "wrong-type", "expected an array of bit patterns");
  if (length >= 0 && static_cast<int64_t>(value.size()) != length)
    fail(field, index, "wrong-shape",
         "has " + std::to_string(value.size()) + " patterns, expected " + std::to_string(length));
  for (const json& v : value) {
    const int64_t x = json_integer(v, field, index);
    if (x < 0 || x > max)
      fail(field, index, "out-of-range",
           "pattern " + std::to_string(x) + " is outside [0, " + std::to_string(max) + "]");
    out->push_back(static_cast<T>(x));
  }
}

// [[row] x rows], flattened. Rows must share one length (a ragged row is named here); whether that
// length is right is validate_step()'s call, so its rule order holds. When rows differ, the row
// named is the first whose length is not `expected` (D for keys) or, without one, not row 0's.
std::vector<Bf16> read_rows(const json& value, const std::string& field, int64_t expected = -1) {
  if (!value.is_array()) fail(field, -1, "wrong-type", "expected an array of rows");
  std::vector<Bf16> out;
  int64_t length = !value.empty() && value[0].is_array() ? static_cast<int64_t>(value[0].size()) : -1;
  if (expected >= 0 && length >= 0)
    for (const json& row : value)
      if (row.is_array() && static_cast<int64_t>(row.size()) != length) {
        length = expected;  // ragged: measure every row against the expected length
        break;
      }
  for (size_t i = 0; i < value.size(); ++i)
    read_patterns(value[i], field, static_cast<int64_t>(i), length, 0xFFFF, &out);
  return out;
}

CacheBuffer zero_cache(int64_t num_blocks, int64_t rows, int64_t width, int bytes, const char* field, int64_t budget) {
  if (num_blocks < 0) fail(field, -1, "out-of-range", "the number of blocks must be >= 0");
  const __int128 wanted = static_cast<__int128>(num_blocks) * rows * width * bytes;  // < 2^63 * 2^20 * 2^10 * 2
  if (wanted > budget) {
    const std::string need = wanted > std::numeric_limits<int64_t>::max() ? std::string("more than 8 EiB")
                                                                          : bytes_text(static_cast<int64_t>(wanted));
    fail(field, -1, "too-large",
         std::to_string(num_blocks) + " blocks of " + std::to_string(rows) + " rows of " + std::to_string(width) +
             " elements need " + need + " (both caches count); " +
             limit_hint(max_cache_bytes(), kMaxCacheBytesVariable));
  }
  const auto size = static_cast<int64_t>(wanted);
  CacheBuffer cache;
  cache.layout = CacheLayout::dense(num_blocks, rows, width, bytes);
  cache.bytes.assign(static_cast<size_t>(std::max<int64_t>(0, size)), 0);
  return cache;
}

// The (block, row) slot of a listed row, checked against the cache.
int64_t listed_slot(JsonObjectReader& entry, const CacheLayout& layout, const std::string& field, int64_t index,
                    std::set<int64_t>* seen) {
  const int64_t block = entry.integer("block");
  const int64_t row = entry.integer("row");
  if (block < 0 || block >= layout.num_blocks || row < 0 || row >= layout.rows)
    fail(field, index, "out-of-range",
         "(block " + std::to_string(block) + ", row " + std::to_string(row) + ") is outside the cache of " +
             std::to_string(layout.num_blocks) + " blocks of " + std::to_string(layout.rows) + " rows");
  const int64_t slot = block * layout.rows + row;
  if (!seen->insert(slot).second) fail(field, index, "duplicate", "row listed twice");
  return slot;
}

void read_ring_rows(const json& rows, const StepInput& in, CacheBuffer* ring) {
  if (!rows.is_array()) fail("ring", -1, "wrong-type", "expected an array of rows");
  std::set<int64_t> seen;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto index = static_cast<int64_t>(i);
    JsonObjectReader entry(rows[i], "ring[" + std::to_string(i) + "].");
    const int64_t slot = listed_slot(entry, ring->layout, "ring", index, &seen);
    std::vector<Bf16> key;
    read_patterns(entry.raw("key"), "ring", index, in.config.head_dim, 0xFFFF, &key);
    std::memcpy(ring->bytes.data() + ring->layout.byte_offset(slot, 0), key.data(), key.size() * 2);
    if (in.config.ring_positions) {
      const std::vector<int64_t> pos = entry.integer_array("position");
      if (pos.size() != 3) fail("ring", index, "wrong-shape", "position must be [t, h, w]");
      std::memcpy(ring->bytes.data() + ring->layout.byte_offset(slot, ring_position_offset(in.config.head_dim)),
                  pos.data(), 24);
    }
    entry.reject_unknown_fields();
  }
}

void read_compressed_rows(const json& rows, const StepInput& in, CacheBuffer* compressed) {
  if (!rows.is_array()) fail("compressed", -1, "wrong-type", "expected an array of rows");
  std::set<int64_t> seen;
  const bool fp8 = in.config.store_dtype == StoreDtype::kFp8E4m3;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto index = static_cast<int64_t>(i);
    JsonObjectReader entry(rows[i], "compressed[" + std::to_string(i) + "].");
    const int64_t slot = listed_slot(entry, compressed->layout, "compressed", index, &seen);
    uint8_t* dst = compressed->bytes.data() + compressed->layout.byte_offset(slot, 0);
    if (fp8) {
      std::vector<uint8_t> value;
      read_patterns(entry.raw("value"), "compressed", index, in.config.head_dim, 0xFF, &value);
      std::memcpy(dst, value.data(), value.size());
    } else {
      std::vector<Bf16> value;
      read_patterns(entry.raw("value"), "compressed", index, in.config.head_dim, 0xFFFF, &value);
      std::memcpy(dst, value.data(), value.size() * 2);
    }
    entry.reject_unknown_fields();
  }
}

std::vector<int64_t> read_positions(const json& value, int* axes) {
  if (!value.is_array()) fail("positions", -1, "wrong-type", "expected [N] or [[N], [N], [N]]");
  if (!value.empty() && value[0].is_array()) {
    if (value.size() != 3)
      fail("positions", -1, "wrong-shape", "three-axis positions must be [[t...], [h...], [w...]]");
    std::vector<int64_t> out;
    for (size_t axis = 0; axis < 3; ++axis) {
      if (!value[axis].is_array() || value[axis].size() != value[0].size())
        fail("positions", static_cast<int64_t>(axis), "wrong-shape", "the three axes must have N entries each");
      for (const json& v : value[axis]) out.push_back(json_integer(v, "positions", static_cast<int64_t>(axis)));
    }
    *axes = 3;
    return out;
  }
  std::vector<int64_t> out;
  for (size_t i = 0; i < value.size(); ++i) out.push_back(json_integer(value[i], "positions", static_cast<int64_t>(i)));
  *axes = 1;
  return out;
}

json patterns_of_row(const uint8_t* p, int64_t n, int bytes) {
  json row = json::array();
  for (int64_t i = 0; i < n; ++i) {
    if (bytes == 1)
      row.push_back(p[i]);
    else
      row.push_back(static_cast<int>(p[2 * i] | (p[2 * i + 1] << 8)));
  }
  return row;
}

bool row_is_zero(const CacheBuffer& cache, int64_t slot) {
  const uint8_t* p = cache.bytes.data() + cache.layout.byte_offset(slot, 0);
  for (int64_t i = 0; i < cache.layout.width * cache.layout.element_bytes; ++i)
    if (p[i] != 0) return false;
  return true;
}

}  // namespace

StepCase step_case_from_json(const json& j) {
  JsonObjectReader r(j);
  StepCase c;
  StepInput& in = c.input;
  in.config.compress_ratio = r.integer("compress_ratio");
  in.config.storage_block_size = r.integer("storage_block_size");
  in.config.ring_capacity = r.integer("ring_capacity");
  in.config.head_dim = r.integer("head_dim");
  in.config.rotary_dim = r.integer("rotary_dim");
  in.config.num_heads = r.integer("num_heads");
  in.batch.num_actual_tokens = r.integer("num_actual_tokens");
  in.batch.query_start_loc = r.integer_array("query_start_loc");
  in.batch.seq_lens = r.integer_array("seq_lens");
  in.batch.common_slot_mapping = r.integer_array("common_slot_mapping", false);
  in.batch.reorder_batch_threshold = r.optional_integer("reorder_batch_threshold").value_or(1);
  in.block_table = block_table_from_json(r.raw("block_table"), "block_table");
  in.ring_block_table = block_table_from_json(r.raw("ring_block_table"), "ring_block_table");
  in.config.ring_positions = r.boolean("ring_positions");
  if (const json* sections = r.optional_raw("mrope_sections")) {
    if (!sections->is_array() || sections->size() != 3)
      fail("mrope_sections", -1, "wrong-shape", "expected [t, h, w] or null");
    in.config.mrope_sections = std::array<int64_t, 3>{json_integer((*sections)[0], "mrope_sections", 0),
                                                      json_integer((*sections)[1], "mrope_sections", 1),
                                                      json_integer((*sections)[2], "mrope_sections", 2)};
  }
  const std::string dtype = r.string("store_dtype");
  if (dtype != "bf16" && dtype != "fp8_e4m3")
    fail("store_dtype", -1, "unknown-dtype", "\"" + dtype + "\" is not bf16 or fp8_e4m3");
  in.config.store_dtype = dtype == "bf16" ? StoreDtype::kBf16 : StoreDtype::kFp8E4m3;
  const double eps = r.number("eps");
  if (std::isfinite(eps) && std::fabs(eps) > static_cast<double>(std::numeric_limits<float>::max()))
    fail("eps", -1, "out-of-range",
         "eps = " + json(eps).dump() +
             " overflows binary32 (largest finite value 3.4028235e38); eps must be finite "
             "and > 0");
  in.config.eps = static_cast<float>(eps);  // binary32 by round-to-nearest

  // Shapes are checked row by row here (to name the row) and as a whole by validate_step().
  const json& cos_sin = r.raw("cos_sin");
  in.config.cos_sin = std::make_shared<const std::vector<Bf16>>(read_rows(cos_sin, "cos_sin"));
  in.config.max_position = cos_sin.is_array() ? static_cast<int64_t>(cos_sin.size()) : 0;
  const bool d_valid = in.config.head_dim >= 32 && in.config.head_dim <= 512;
  in.keys = read_rows(r.raw("keys"), "keys", d_valid ? in.config.head_dim : -1);
  const json& queries = r.raw("queries");
  if (!queries.is_array()) fail("queries", -1, "wrong-type", "expected [[[D] x HQ] x N]");
  const int64_t heads = !queries.empty() && queries[0].is_array() ? static_cast<int64_t>(queries[0].size()) : -1;
  const int64_t head_length = heads > 0 && queries[0][0].is_array() ? static_cast<int64_t>(queries[0][0].size()) : -1;
  for (size_t t = 0; t < queries.size(); ++t) {
    if (!queries[t].is_array() || static_cast<int64_t>(queries[t].size()) != heads)
      fail("queries", static_cast<int64_t>(t), "wrong-shape", "every row needs the same number of heads as row 0");
    for (const json& head : queries[t])
      read_patterns(head, "queries", static_cast<int64_t>(t), head_length, 0xFFFF, &in.queries);
  }
  in.positions = read_positions(r.raw("positions"), &in.position_axes);
  read_patterns(r.raw("w_k"), "w_k", -1, -1, 0xFFFF, &in.config.w_k);
  read_patterns(r.raw("w_q"), "w_q", -1, -1, 0xFFFF, &in.config.w_q);

  // The caches: dense, zero except the listed rows. Their rows need a valid D and cache geometry
  // before anything is allocated, so these three rules of validate_step() are also checked here.
  if (in.config.head_dim < 32 || in.config.head_dim > 512 || (in.config.head_dim & (in.config.head_dim - 1)) != 0)
    fail("head_dim", -1, "out-of-range",
         "D = " + std::to_string(in.config.head_dim) + " must be a power of two in [32, 512]");
  if (in.config.ring_capacity < 1 || in.config.ring_capacity > kMaxRingCapacity)
    fail("ring_capacity", -1, "out-of-range", "R must be in [1, 2^20]");
  if (in.config.storage_block_size < 1 || in.config.storage_block_size > kMaxStorageBlockSize)
    fail("storage_block_size", -1, "out-of-range", "S must be in [1, 2^20]");
  const int bytes = element_bytes(in.config.store_dtype);
  c.caches.ring =
      zero_cache(r.integer("num_ring_blocks"), in.config.ring_capacity,
                 ring_row_width(in.config.head_dim, in.config.ring_positions), 2, "num_ring_blocks", max_cache_bytes());
  c.caches.compressed =
      zero_cache(r.integer("num_compressed_blocks"), in.config.storage_block_size, in.config.head_dim, bytes,
                 "num_compressed_blocks", max_cache_bytes() - c.caches.ring.layout.size_bytes());
  if (const json* rows = r.optional_raw("ring")) read_ring_rows(*rows, in, &c.caches.ring);
  if (const json* rows = r.optional_raw("compressed")) read_compressed_rows(*rows, in, &c.caches.compressed);
  r.reject_unknown_fields();
  return c;
}

namespace {

json cache_rows_to_json(const StepInput& in, const CacheBuffer& cache, bool ring) {
  json rows = json::array();
  const CacheLayout& l = cache.layout;
  for (int64_t slot = 0; slot < l.num_blocks * l.rows; ++slot) {
    if (row_is_zero(cache, slot)) continue;
    json entry = {{"block", slot / l.rows}, {"row", slot % l.rows}};
    const uint8_t* p = cache.bytes.data() + l.byte_offset(slot, 0);
    entry[ring ? "key" : "value"] = patterns_of_row(p, in.config.head_dim, l.element_bytes);
    if (ring && in.config.ring_positions) {
      std::array<int64_t, 3> pos{};
      std::memcpy(pos.data(), cache.bytes.data() + l.byte_offset(slot, ring_position_offset(in.config.head_dim)), 24);
      entry["position"] = pos;
    }
    rows.push_back(std::move(entry));
  }
  return rows;
}

json rows_to_json(const std::vector<Bf16>& flat, int64_t width) {
  json rows = json::array();
  for (size_t i = 0; i + static_cast<size_t>(width) <= flat.size(); i += static_cast<size_t>(width))
    rows.push_back(std::vector<Bf16>(flat.begin() + static_cast<std::ptrdiff_t>(i),
                                     flat.begin() + static_cast<std::ptrdiff_t>(i) + width));
  return rows;
}

}  // namespace

json step_case_to_json(const StepCase& c) {
  const StepInput& in = c.input;
  json j;
  j["compress_ratio"] = in.config.compress_ratio;
  j["storage_block_size"] = in.config.storage_block_size;
  j["ring_capacity"] = in.config.ring_capacity;
  j["head_dim"] = in.config.head_dim;
  j["rotary_dim"] = in.config.rotary_dim;
  j["num_heads"] = in.config.num_heads;
  j["num_actual_tokens"] = in.batch.num_actual_tokens;
  j["query_start_loc"] = in.batch.query_start_loc;
  j["seq_lens"] = in.batch.seq_lens;
  j["common_slot_mapping"] = in.batch.common_slot_mapping;
  j["reorder_batch_threshold"] = in.batch.reorder_batch_threshold;
  j["block_table"] = block_table_to_json(in.block_table);
  j["ring_block_table"] = block_table_to_json(in.ring_block_table);
  j["num_compressed_blocks"] = c.caches.compressed.layout.num_blocks;
  j["num_ring_blocks"] = c.caches.ring.layout.num_blocks;
  j["ring_positions"] = in.config.ring_positions;
  j["mrope_sections"] = in.config.mrope_sections ? json(*in.config.mrope_sections) : json(nullptr);
  j["store_dtype"] = to_string(in.config.store_dtype);
  j["eps"] = in.config.eps;
  j["cos_sin"] = rows_to_json(in.config.cos_sin ? *in.config.cos_sin : std::vector<Bf16>{}, in.config.rotary_dim);
  j["keys"] = rows_to_json(in.keys, in.config.head_dim);
  json queries = json::array();
  for (int64_t t = 0; t < in.num_tokens(); ++t) {
    json heads = json::array();
    for (int64_t h = 0; h < in.config.num_heads; ++h) {
      const auto begin = in.queries.begin() + (t * in.config.num_heads + h) * in.config.head_dim;
      heads.push_back(std::vector<Bf16>(begin, begin + in.config.head_dim));
    }
    queries.push_back(std::move(heads));
  }
  j["queries"] = std::move(queries);
  if (in.position_axes == 3) {
    const auto n = static_cast<std::ptrdiff_t>(in.num_tokens());
    j["positions"] = {std::vector<int64_t>(in.positions.begin(), in.positions.begin() + n),
                      std::vector<int64_t>(in.positions.begin() + n, in.positions.begin() + 2 * n),
                      std::vector<int64_t>(in.positions.begin() + 2 * n, in.positions.end())};
  } else {
    j["positions"] = in.positions;
  }
  j["w_k"] = in.config.w_k;
  j["w_q"] = in.config.w_q;
  j["ring"] = cache_rows_to_json(in, c.caches.ring, true);
  j["compressed"] = cache_rows_to_json(in, c.caches.compressed, false);
  return j;
}

json step_result_to_json(const StepInput& in, const StepCaches& caches, const StepOutput& out,
                         const std::vector<reference::PooledGroup>* pooled) {
  json j;
  j["status"] = "ok";
  j["step_status"] = to_string(out.step_status);
  j["ring"] = cache_rows_to_json(in, caches.ring, true);
  j["compressed"] = cache_rows_to_json(in, caches.compressed, false);
  const int bytes = element_bytes(in.config.store_dtype);
  json q = json::array();
  for (int64_t t = 0; t < in.num_tokens(); ++t) {
    json heads = json::array();
    for (int64_t h = 0; h < in.config.num_heads; ++h)
      heads.push_back(patterns_of_row(out.q_out.data() + (t * in.config.num_heads + h) * in.config.head_dim * bytes,
                                      in.config.head_dim, bytes));
    q.push_back(std::move(heads));
  }
  j["q_out"] = std::move(q);
  if (pooled != nullptr) {
    json groups = json::array();
    for (const auto& g : *pooled) groups.push_back({{"request", g.request}, {"group", g.group}, {"value", g.value}});
    j["pooled"] = std::move(groups);
  }
  return j;
}

}  // namespace qsa::traces
