#include "qsa/timing/metadata_shapes.hpp"

#include <algorithm>

#include "qsa/traces/rng.hpp"

namespace qsa::timing {

std::vector<MetadataShape> metadata_bench_shapes() {
  return {{"decode", 256, 64},  {"decode", 1024, 256}, {"decode", 4096, 1024}, {"mixed", 8192, 1024},
          {"prefill", 8192, 2}, {"prefill", 16384, 4}, {"prefill", 65536, 16}};
}

MetadataInput make_shape_input(const MetadataShape& shape, CacheKind kind, uint64_t seed) {
  traces::Rng rng(seed);
  MetadataInput in;
  in.cache.kind = kind;
  if (kind == CacheKind::kCompressed) {
    in.cache.compress_ratio = 4;
    in.cache.storage_block_size = 16;
  } else if (kind == CacheKind::kRing) {
    in.cache.ring_capacity = 8;
  }
  in.batch.reorder_batch_threshold = 4;

  // Query lengths: decodes of 4 rows; the mixed shape ends with 8 prefill chunks sharing the rest.
  std::vector<int64_t> query;
  if (shape.family == "decode") {
    query.assign(static_cast<size_t>(shape.requests), shape.tokens / shape.requests);
  } else if (shape.family == "mixed") {
    const int64_t prefills = 8;
    const int64_t decodes = shape.requests - prefills;
    query.assign(static_cast<size_t>(decodes), 4);
    const int64_t rest = shape.tokens - 4 * decodes;
    for (int64_t i = 0; i < prefills; ++i) query.push_back(rest / prefills + (i < rest % prefills ? 1 : 0));
  } else {
    query.assign(static_cast<size_t>(shape.requests), shape.tokens / shape.requests);
  }

  in.batch.query_start_loc.push_back(0);
  int64_t max_seq = 0;
  for (int64_t q : query) {
    const int64_t start = q > 4 ? 16 * rng.range(0, 512) : rng.range(256, 32768);
    in.batch.query_start_loc.push_back(in.batch.query_start_loc.back() + q);
    in.batch.seq_lens.push_back(start + q);
    max_seq = std::max(max_seq, start + q);
  }
  in.batch.num_actual_tokens = in.batch.query_start_loc.back();
  for (int64_t t = 0; t < in.batch.num_actual_tokens; ++t)
    in.batch.common_slot_mapping.push_back(rng.range(0, int64_t{1} << 30));
  const int64_t cols = kind == CacheKind::kCompressed ? max_seq / (4 * 16) + 1 : 1;
  std::vector<std::vector<int32_t>> rows(static_cast<size_t>(shape.requests),
                                         std::vector<int32_t>(static_cast<size_t>(cols)));
  for (auto& row : rows)
    for (auto& block : row) block = static_cast<int32_t>(rng.range(0, (1 << 20) - 1));
  in.block_table = BlockTable::from_rows(rows);
  return in;
}

}  // namespace qsa::timing
