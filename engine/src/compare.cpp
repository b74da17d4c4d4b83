#include "qsa/engine/compare.hpp"

#include <sstream>
#include <vector>

namespace qsa::engine {

std::string Mismatch::to_string() const {
  std::ostringstream os;
  os << field;
  if (index >= 0) os << "[" << index << "]";
  if (request >= 0)
    os << " (request " << request << ", position " << position << ")";
  else if (index >= 0 && position == -1 && field != "k_work_metadata")
    os << " (padding row)";
  os << ": expected " << expected << ", actual " << actual;
  if (count > 1) os << "; " << count << " elements differ";
  return os.str();
}

namespace {

template <typename T>
std::optional<Mismatch> compare_rows(const char* field, const std::vector<T>& expected, const std::vector<T>& actual,
                                     const MetadataInput& input, const MetadataOutput& reference) {
  if (expected.size() != actual.size()) {
    return Mismatch{
        field, -1, -1, -1, std::to_string(expected.size()) + " elements", std::to_string(actual.size()) + " elements",
        1};
  }
  std::optional<Mismatch> first;
  int64_t count = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    if (expected[i] == actual[i]) continue;
    ++count;
    if (!first) {
      const auto row = static_cast<int64_t>(i);
      const bool is_row =
          row < input.batch.num_mapped_tokens() && row < static_cast<int64_t>(reference.token_to_req.size());
      first = Mismatch{field,
                       row,
                       is_row ? reference.token_to_req[i] : -1,
                       is_row ? reference.logical_positions[i] : -1,
                       std::to_string(expected[i]),
                       std::to_string(actual[i]),
                       0};
    }
  }
  if (first) first->count = count;
  return first;
}

std::optional<Mismatch> compare_k_work(const std::vector<int32_t>& expected, const std::vector<int32_t>& actual) {
  if (expected.size() != actual.size())
    return Mismatch{"k_work_metadata",
                    -1,
                    -1,
                    -1,
                    std::to_string(expected.size() / 2) + " rows",
                    std::to_string(actual.size() / 2) + " rows",
                    1};
  std::optional<Mismatch> first;
  int64_t count = 0;
  for (size_t r = 0; 2 * r < expected.size(); ++r) {
    if (expected[2 * r] == actual[2 * r] && expected[2 * r + 1] == actual[2 * r + 1]) continue;
    ++count;
    if (!first) {
      auto pair = [](int32_t a, int32_t b) { return "(" + std::to_string(a) + ", " + std::to_string(b) + ")"; };
      first = Mismatch{"k_work_metadata",
                       static_cast<int64_t>(r),
                       expected[2 * r] >= 0 ? expected[2 * r] : -1,
                       -1,
                       pair(expected[2 * r], expected[2 * r + 1]),
                       pair(actual[2 * r], actual[2 * r + 1]),
                       0};
    }
  }
  if (first) first->count = count;
  return first;
}

std::optional<Mismatch> compare_scalar(const char* field, int64_t expected, int64_t actual) {
  if (expected == actual) return std::nullopt;
  return Mismatch{field, -1, -1, -1, std::to_string(expected), std::to_string(actual), 1};
}

}  // namespace

std::optional<Mismatch> compare_metadata(const MetadataInput& input, const MetadataOutput& expected,
                                         const MetadataOutput& actual) {
  if (auto m = compare_rows("token_to_req", expected.token_to_req, actual.token_to_req, input, expected)) return m;
  if (auto m = compare_rows("logical_positions", expected.logical_positions, actual.logical_positions, input, expected))
    return m;
  if (auto m = compare_rows("visible_blocks", expected.visible_blocks, actual.visible_blocks, input, expected))
    return m;
  if (auto m = compare_rows("slot_mapping", expected.slot_mapping, actual.slot_mapping, input, expected)) return m;
  if (auto m = compare_k_work(expected.k_work_metadata, actual.k_work_metadata)) return m;
  const BatchSplit& e = expected.split;
  const BatchSplit& a = actual.split;
  if (auto m = compare_scalar("num_decodes", e.num_decodes, a.num_decodes)) return m;
  if (auto m = compare_scalar("num_decode_tokens", e.num_decode_tokens, a.num_decode_tokens)) return m;
  if (auto m = compare_scalar("num_prefills", e.num_prefills, a.num_prefills)) return m;
  if (auto m = compare_scalar("num_prefill_tokens", e.num_prefill_tokens, a.num_prefill_tokens)) return m;
  if (auto m = compare_scalar("max_query_len", e.max_query_len, a.max_query_len)) return m;
  if (auto m = compare_scalar("decode_query_len", e.decode_query_len, a.decode_query_len)) return m;
  return compare_scalar("max_seq_len", e.max_seq_len, a.max_seq_len);
}

}  // namespace qsa::engine
