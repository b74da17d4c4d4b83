#include "qsa/traces/json_codec.hpp"

#include <charconv>
#include <ostream>
#include <string>

#include "qsa/traces/json_reader.hpp"

namespace qsa::traces {

BlockTable block_table_from_json(const nlohmann::json& rows, const std::string& field) {
  nlohmann::json wrapper = {{field, rows}};
  JsonObjectReader reader(wrapper);
  const auto matrix = reader.integer_matrix(field.c_str(), -2147483648LL, 2147483647LL, /*rectangular=*/true);
  std::vector<std::vector<int32_t>> narrow;
  narrow.reserve(matrix.size());
  for (const auto& row : matrix) narrow.emplace_back(row.begin(), row.end());
  return BlockTable::from_rows(narrow);
}

nlohmann::json block_table_to_json(const BlockTable& table) {
  nlohmann::json rows = nlohmann::json::array();
  for (int64_t r = 0; r < table.rows; ++r) {
    nlohmann::json row = nlohmann::json::array();
    for (int64_t c = 0; c < table.cols; ++c) row.push_back(table.at(r, c));
    rows.push_back(std::move(row));
  }
  return rows;
}

MetadataInput metadata_input_from_json(const nlohmann::json& json) {
  JsonObjectReader reader(json);
  MetadataInput in;
  const std::string kind = reader.string("kind");
  const auto parsed = parse_cache_kind(kind);
  if (!parsed) reader.fail("kind", -1, "unknown-kind", "\"" + kind + "\" is not compressed, ring or passthrough");
  in.cache.kind = *parsed;
  in.cache.compress_ratio = reader.optional_integer("compress_ratio");
  in.cache.storage_block_size = reader.optional_integer("storage_block_size").value_or(0);
  in.cache.ring_capacity = reader.optional_integer("ring_capacity").value_or(0);
  in.cache.request_capacity = reader.optional_integer("request_capacity");
  in.batch.reorder_batch_threshold = reader.optional_integer("reorder_batch_threshold").value_or(1);
  in.batch.num_actual_tokens = reader.integer("num_actual_tokens");
  in.batch.query_start_loc = reader.integer_array("query_start_loc");
  in.batch.seq_lens = reader.integer_array("seq_lens");
  in.batch.common_slot_mapping = reader.integer_array("common_slot_mapping", /*required=*/false);
  if (const nlohmann::json* table = reader.optional_raw("block_table"))
    in.block_table = block_table_from_json(*table, "block_table");
  reader.reject_unknown_fields();
  return in;
}

nlohmann::json metadata_input_to_json(const MetadataInput& in) {
  nlohmann::json j;
  j["kind"] = to_string(in.cache.kind);
  if (in.cache.compress_ratio) j["compress_ratio"] = *in.cache.compress_ratio;
  if (in.cache.kind == CacheKind::kCompressed) j["storage_block_size"] = in.cache.storage_block_size;
  if (in.cache.kind == CacheKind::kRing) j["ring_capacity"] = in.cache.ring_capacity;
  if (in.cache.request_capacity) j["request_capacity"] = *in.cache.request_capacity;
  j["reorder_batch_threshold"] = in.batch.reorder_batch_threshold;
  j["num_actual_tokens"] = in.batch.num_actual_tokens;
  j["query_start_loc"] = in.batch.query_start_loc;
  j["seq_lens"] = in.batch.seq_lens;
  j["common_slot_mapping"] = in.batch.common_slot_mapping;
  j["block_table"] = block_table_to_json(in.block_table);
  return j;
}

namespace {

// Appends JSON text to a buffer that is flushed to the stream in 1 MiB pieces.
class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out) { buffer_.reserve(kFlushAt + 64); }
  ~JsonWriter() { flush(); }
  void raw(const char* text) {
    buffer_ += text;
    maybe_flush();
  }
  void integer(int64_t value) {
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    buffer_.append(digits, end);
    maybe_flush();
  }
  template <typename T>
  void array(const std::vector<T>& values) {
    raw("[");
    for (size_t i = 0; i < values.size(); ++i) {
      if (i > 0) raw(",");
      integer(values[i]);
    }
    raw("]");
  }
  void flush() {
    out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    buffer_.clear();
  }

 private:
  static constexpr size_t kFlushAt = size_t{1} << 20;
  void maybe_flush() {
    if (buffer_.size() >= kFlushAt) flush();
  }
  std::ostream& out_;
  std::string buffer_;
};

}  // namespace

void write_metadata_output_json(std::ostream& out, const MetadataOutput& m) {
  // Keys in nlohmann's (sorted) order, so the text is what a JSON tree of the output would dump;
  // streamed because at N = 2^24 that tree alone would take over a gigabyte.
  JsonWriter w(out);
  w.raw("{\"decode_query_len\":");
  w.integer(m.split.decode_query_len);
  w.raw(",\"k_work_metadata\":[");
  for (size_t r = 0; 2 * r + 1 < m.k_work_metadata.size(); ++r) {
    w.raw(r > 0 ? ",[" : "[");
    w.integer(m.k_work_metadata[2 * r]);
    w.raw(",");
    w.integer(m.k_work_metadata[2 * r + 1]);
    w.raw("]");
  }
  w.raw("],\"logical_positions\":");
  w.array(m.logical_positions);
  w.raw(",\"max_query_len\":");
  w.integer(m.split.max_query_len);
  w.raw(",\"max_seq_len\":");
  w.integer(m.split.max_seq_len);
  w.raw(",\"num_decode_tokens\":");
  w.integer(m.split.num_decode_tokens);
  w.raw(",\"num_decodes\":");
  w.integer(m.split.num_decodes);
  w.raw(",\"num_prefill_tokens\":");
  w.integer(m.split.num_prefill_tokens);
  w.raw(",\"num_prefills\":");
  w.integer(m.split.num_prefills);
  w.raw(",\"slot_mapping\":");
  w.array(m.slot_mapping);
  w.raw(",\"status\":\"ok\",\"token_to_req\":");
  w.array(m.token_to_req);
  w.raw(",\"visible_blocks\":");
  w.array(m.visible_blocks);
  w.raw("}");
}

nlohmann::json error_to_json(const Error& error) {
  return {{"status", "error"},
          {"field", error.field},
          {"index", error.index},
          {"rule", error.rule},
          {"message", error.message}};
}

}  // namespace qsa::traces
