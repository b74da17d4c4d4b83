#include "qsa/traces/json_codec.hpp"

#include <charconv>
#include <ostream>
#include <string>

#include "qsa/traces/json_reader.hpp"

namespace qsa::traces {

BlockTable block_table_from_json(const nlohmann::json& rows, const std::string& field) {
  // Read in place into the dense table, with JsonObjectReader::integer_matrix's rules and words:
  // a copy of the tree, a vector per row and a narrowed copy cost ~50 bytes of memory per byte of
  // a table of 2^20 empty rows (3 bytes of text each), past docs/limits.md's figure.
  auto fail = [&](int64_t index, const char* rule, const std::string& message) {
    throw InputError(Error{field, index, rule, message});
  };
  if (!rows.is_array()) fail(-1, "wrong-type", std::string("expected an array of arrays, got ") + rows.type_name());
  BlockTable table;
  table.rows = static_cast<int64_t>(rows.size());
  table.cols = rows.empty() || !rows.front().is_array() ? 0 : static_cast<int64_t>(rows.front().size());
  table.row_stride = table.cols;
  table.col_stride = 1;
  for (size_t r = 0; r < rows.size(); ++r) {
    const auto row_index = static_cast<int64_t>(r);
    const nlohmann::json& row = rows[r];
    if (!row.is_array()) fail(row_index, "wrong-type", "row " + std::to_string(r) + " is not an array");
    if (static_cast<int64_t>(row.size()) != table.cols)
      fail(row_index, "wrong-shape",
           "row " + std::to_string(r) + " has " + std::to_string(row.size()) + " entries, row 0 has " +
               std::to_string(table.cols));
    // Rows of equal length so far: the storage grows with the text already read, never ahead of it.
    for (size_t c = 0; c < row.size(); ++c) {
      const int64_t x = json_integer(row[c], field, row_index);
      if (x < -2147483648LL || x > 2147483647LL)
        fail(row_index, "out-of-range",
             "entry [" + std::to_string(r) + "][" + std::to_string(c) + "] = " + std::to_string(x) +
                 " is outside [-2147483648, 2147483647]");
      table.storage.push_back(static_cast<int32_t>(x));
    }
  }
  return table;
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
