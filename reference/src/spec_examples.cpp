#include "qsa/spec_examples.hpp"

#include <sstream>

namespace qsa {
namespace {

Batch make_batch(std::vector<int64_t> qsl, std::vector<int64_t> seq_lens, int64_t n, int64_t threshold = 1) {
  Batch b;
  b.query_start_loc = std::move(qsl);
  b.seq_lens = std::move(seq_lens);
  b.num_actual_tokens = n;
  b.reorder_batch_threshold = threshold;
  return b;
}

template <typename T>
std::optional<std::string> first_difference(const char* field, const std::vector<T>& expected,
                                            const std::vector<T>& actual) {
  if (expected.size() != actual.size()) {
    std::ostringstream os;
    os << field << ": expected " << expected.size() << " elements, got " << actual.size();
    return os.str();
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    if (expected[i] != actual[i]) {
      std::ostringstream os;
      os << field << "[" << i << "]: expected " << expected[i] << ", got " << actual[i];
      return os.str();
    }
  }
  return std::nullopt;
}

}  // namespace

std::vector<MetadataExample> spec_metadata_examples() {
  std::vector<MetadataExample> examples;
  {
    MetadataExample e;
    e.name = "compressed C=4 S=16 with a zero-length request";
    e.input.cache.kind = CacheKind::kCompressed;
    e.input.cache.compress_ratio = 4;
    e.input.cache.storage_block_size = 16;
    e.input.batch = make_batch({0, 3, 3, 8}, {7, 0, 12}, 8);
    e.input.batch.common_slot_mapping.assign(8, -1);
    e.input.block_table = BlockTable::from_rows({{0}, {0}, {0}});
    e.slot_mapping = std::vector<int64_t>(8, -1);
    e.visible_blocks = std::vector<int32_t>{1, 1, 1, 2, 2, 2, 2, 3};
    e.k_work_metadata = std::vector<int32_t>{0, 0, 2, 0, 2, 1, -1, -1};
    examples.push_back(e);
  }
  {
    MetadataExample e;
    e.name = "ring R=4 keeps each chunk's last R rows";
    e.input.cache.kind = CacheKind::kRing;
    e.input.cache.ring_capacity = 4;
    e.input.cache.compress_ratio = 1;
    e.input.batch = make_batch({0, 7, 13, 13}, {9, 11, 0}, 16);
    e.input.block_table = BlockTable::from_rows({{1}, {0}, {2}});
    e.slot_mapping = std::vector<int64_t>{-1, -1, -1, 5, 6, 7, 4, -1, -1, 3, 0, 1, 2, -1, -1, -1};
    examples.push_back(e);
  }
  {
    MetadataExample e;
    e.name = "passthrough padded uniform decode batch (T=4)";
    e.input.cache.kind = CacheKind::kPassthrough;
    e.input.batch = make_batch({0, 4, 8, 12, 12}, {68, 68, 68, 0}, 16, 4);
    for (int64_t t = 0; t < 16; ++t) e.input.batch.common_slot_mapping.push_back(t < 12 ? 1000 + 7 * t : -1);
    e.input.block_table = BlockTable::from_rows({{}, {}, {}, {}});
    std::vector<int64_t> logical;
    std::vector<int32_t> visible;
    for (int r = 0; r < 3; ++r)
      for (int i = 0; i < 4; ++i) {
        logical.push_back(64 + i);
        visible.push_back(65 + i);
      }
    for (int i = 0; i < 4; ++i) {
      logical.push_back(-1);
      visible.push_back(0);
    }
    e.logical_positions = logical;
    e.visible_blocks = visible;
    e.slot_mapping = e.input.batch.common_slot_mapping;
    for (int64_t t = 12; t < 16; ++t) (*e.slot_mapping)[t] = -1;
    e.num_decodes = 4;
    e.decode_query_len = 4;
    examples.push_back(e);
  }
  {
    MetadataExample e;
    e.name = "token-only padding";
    e.input.cache.kind = CacheKind::kPassthrough;
    e.input.batch = make_batch({0, 2, 4}, {2, 5}, 6);
    e.input.batch.common_slot_mapping = {10, 11, 20, 21, -1, -1};
    e.input.block_table = BlockTable::from_rows({{}, {}});
    e.token_to_req = std::vector<int32_t>{0, 0, 1, 1, 0, 0};
    e.logical_positions = std::vector<int64_t>{0, 1, 3, 4, -1, -1};
    examples.push_back(e);
  }
  return examples;
}

std::optional<std::string> compare_with_example(const MetadataExample& e, const MetadataOutput& out) {
  if (e.token_to_req)
    if (auto d = first_difference("token_to_req", *e.token_to_req, out.token_to_req)) return d;
  if (e.logical_positions)
    if (auto d = first_difference("logical_positions", *e.logical_positions, out.logical_positions)) return d;
  if (e.visible_blocks)
    if (auto d = first_difference("visible_blocks", *e.visible_blocks, out.visible_blocks)) return d;
  if (e.slot_mapping)
    if (auto d = first_difference("slot_mapping", *e.slot_mapping, out.slot_mapping)) return d;
  if (e.k_work_metadata)
    if (auto d = first_difference("k_work_metadata", *e.k_work_metadata, out.k_work_metadata)) return d;
  if (e.num_decodes && *e.num_decodes != out.split.num_decodes)
    return "num_decodes: expected " + std::to_string(*e.num_decodes) + ", got " + std::to_string(out.split.num_decodes);
  if (e.decode_query_len && *e.decode_query_len != out.split.decode_query_len)
    return "decode_query_len: expected " + std::to_string(*e.decode_query_len) + ", got " +
           std::to_string(out.split.decode_query_len);
  return std::nullopt;
}

std::optional<std::string> check_ring_survival(
    int64_t s, const std::function<Status(const MetadataInput&, MetadataOutput*, Error*)>& build) {
  MetadataInput in;
  in.cache.kind = CacheKind::kRing;
  in.cache.ring_capacity = 8;
  in.batch = make_batch({0, 4}, {s + 4}, 4, 4);
  in.block_table = BlockTable::from_rows({{3}});
  MetadataOutput out = make_poisoned_metadata_output(in);
  Error error;
  if (build(in, &out, &error) != Status::kOk) return "build failed: " + to_string(error);
  for (int64_t m = s - s % 4; m < s; ++m)
    for (int64_t t = 0; t < 4; ++t)
      if (out.slot_mapping[t] == 3 * 8 + m % 8)
        return "chunk start " + std::to_string(s) + ": row " + std::to_string(t) + " overwrites committed position " +
               std::to_string(m);
  return std::nullopt;
}

}  // namespace qsa
