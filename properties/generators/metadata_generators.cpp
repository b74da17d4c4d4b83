#include "generators/metadata_generators.hpp"

#include <algorithm>
#include <ostream>
#include <vector>

#include "qsa/ring_capacity.hpp"
#include "qsa/traces/json_codec.hpp"
#include "qsa/traces/rng.hpp"

namespace qsa {

void showValue(const MetadataInput& input, std::ostream& os) {
  os << traces::metadata_input_to_json(input).dump() << "\n  block_table layout: rows " << input.block_table.rows
     << ", cols " << input.block_table.cols << ", row_stride " << input.block_table.row_stride << ", col_stride "
     << input.block_table.col_stride << ", storage " << input.block_table.storage.size();
}

}  // namespace qsa

namespace qsa::testing {
namespace {

struct Request {
  int64_t query_len;
  int64_t seq_len;
};

enum class Shape { kOneRequest, kOneToken, kAllPadding, kZeroLengthInside, kDecode, kMixed, kPrefill, kAny };
enum class Layout { kRowMajor, kColumnMajor, kRowSlice, kColumnStrided };

int64_t pick(int64_t lo, int64_t hi) { return *rc::gen::inRange<int64_t>(lo, hi + 1); }  // [lo, hi]
// Size-independent probability (inRange alone would be scaled down by the size); shrinks to true.
bool chance(int percent) { return *rc::gen::resize(100, rc::gen::inRange(0, 100)) < percent; }

CacheKindConfig cache_of(CacheKind kind, int64_t drafts) {
  CacheKindConfig cache;
  cache.kind = kind;
  switch (kind) {
    case CacheKind::kCompressed:
      cache.compress_ratio = chance(70) ? *rc::gen::element<int64_t>(2, 4, 4, 8) : pick(2, 64);
      cache.storage_block_size = chance(70) ? *rc::gen::element<int64_t>(1, 2, 4, 16) : pick(1, 300);
      break;
    case CacheKind::kRing: {
      const int64_t c = *rc::gen::element<int64_t>(1, 2, 4);
      cache.ring_capacity = chance(70) ? seed_ring_capacity(c, drafts) : pick(1, 40);
      if (chance(40)) cache.compress_ratio = pick(1, 8);
      break;
    }
    case CacheKind::kPassthrough:
      if (chance(50)) cache.compress_ratio = 1;
      break;
  }
  return cache;
}

// A chunk of q rows whose start s_j is 0, a block boundary, or anywhere; e_j = s_j + q.
Request chunk(int64_t q) {
  int64_t start = 0;
  switch (*rc::gen::inRange(0, 3)) {
    case 0:
      break;
    case 1:
      start = 16 * pick(0, 200);
      break;
    default:
      start = pick(0, 5000);
      break;
  }
  return {q, start + q};
}

std::vector<Request> requests_of(Shape shape, int64_t drafts) {
  std::vector<Request> r;
  auto zero_length = [] { return Request{0, chance(50) ? 0 : pick(0, 400)}; };
  switch (shape) {
    case Shape::kOneRequest:
      r.push_back(chunk(pick(1, 300)));
      break;
    case Shape::kOneToken:
      r.push_back(chunk(1));
      break;
    case Shape::kAllPadding:
      for (int64_t i = pick(1, 6); i > 0; --i) r.push_back({0, 0});
      break;
    case Shape::kZeroLengthInside:
      for (int64_t i = pick(2, 12); i > 0; --i) r.push_back(chance(40) ? zero_length() : chunk(pick(1, 40)));
      break;
    case Shape::kDecode:
      for (int64_t i = pick(1, 300); i > 0; --i) r.push_back(chunk(1 + drafts));
      break;
    case Shape::kMixed:
      for (int64_t i = pick(0, 80); i > 0; --i) r.push_back(chunk(1 + drafts));
      for (int64_t i = pick(1, 4); i > 0; --i) r.push_back(chunk(pick(1, 600)));
      break;
    case Shape::kPrefill:
      for (int64_t i = pick(1, 3); i > 0; --i) r.push_back(chunk(pick(100, 1500)));
      break;
    case Shape::kAny:
      for (int64_t i = pick(1, 40); i > 0; --i) r.push_back(chance(15) ? zero_length() : chunk(pick(1, 60)));
      break;
  }
  if (shape != Shape::kAllPadding && chance(30))  // padded requests at the tail, as vLLM pads for CUDA graphs
    for (int64_t i = pick(1, 5); i > 0; --i) r.push_back({0, 0});
  return r;
}

// Bulk values (table entries, common slots) come from our own generator seeded by one RapidCheck
// draw: thousands of independent draws would make generation and shrinking slow.
BlockTable table_of(int64_t rows, int64_t cols) {
  const int64_t extra_rows = chance(25) ? pick(1, 3) : 0;  // tables are sized for max_num_seqs
  const uint64_t negative_percent = *rc::gen::element<uint64_t>(0, 0, 15, 100);
  traces::Rng rng(*rc::gen::arbitrary<uint64_t>());
  std::vector<std::vector<int32_t>> dense(static_cast<size_t>(rows + extra_rows),
                                          std::vector<int32_t>(static_cast<size_t>(cols)));
  for (auto& row : dense)
    for (auto& entry : row) entry = rng.chance(negative_percent, 100) ? -1 : static_cast<int32_t>(rng.range(0, 100000));
  const Layout layout =
      *rc::gen::element(Layout::kRowMajor, Layout::kColumnMajor, Layout::kRowSlice, Layout::kColumnStrided);
  if (layout == Layout::kRowMajor) return BlockTable::from_rows(dense);
  if (layout == Layout::kColumnMajor) return BlockTable::column_major(dense);
  // A view into a wider table: a column slice (row stride > W) or every other column (column
  // stride 2). Entries outside the view hold a marker (777777) that no table entry (<= 100000) takes.
  const bool slice = layout == Layout::kRowSlice;
  BlockTable t;
  t.rows = static_cast<int64_t>(dense.size());
  t.cols = cols;
  t.col_stride = slice ? 1 : 2;
  t.row_stride = (slice ? cols : 2 * cols) + pick(1, 3);
  t.storage.assign(static_cast<size_t>(t.rows * t.row_stride + 3), 777777);
  for (int64_t r = 0; r < t.rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      t.storage[static_cast<size_t>(r * t.row_stride + c * t.col_stride)] = dense[r][c];
  return t;
}

}  // namespace

rc::Gen<MetadataInput> metadata_inputs(std::optional<CacheKind> kind) {
  return rc::gen::exec([kind] {
    MetadataInput in;
    const CacheKind k =
        kind ? *kind : *rc::gen::element(CacheKind::kCompressed, CacheKind::kRing, CacheKind::kPassthrough);
    const int64_t drafts = pick(0, 4);
    in.cache = cache_of(k, drafts);
    in.batch.reorder_batch_threshold = chance(50) ? 1 : 1 + drafts;
    const Shape shape = *rc::gen::weightedElement<Shape>({{2, Shape::kOneRequest},
                                                          {1, Shape::kOneToken},
                                                          {1, Shape::kAllPadding},
                                                          {2, Shape::kZeroLengthInside},
                                                          {2, Shape::kDecode},
                                                          {2, Shape::kMixed},
                                                          {1, Shape::kPrefill},
                                                          {3, Shape::kAny}});
    const std::vector<Request> requests = requests_of(shape, drafts);

    in.batch.query_start_loc.push_back(0);
    int64_t max_seq = 0;
    for (const Request& r : requests) {
      in.batch.query_start_loc.push_back(in.batch.query_start_loc.back() + r.query_len);
      in.batch.seq_lens.push_back(r.seq_len);
      max_seq = std::max(max_seq, r.seq_len);
    }
    const int64_t m = in.batch.query_start_loc.back();
    int64_t padding = 0;
    switch (*rc::gen::weightedElement<int>({{4, 0}, {2, 1}, {1, 2}})) {
      case 0:
        break;
      case 1:
        padding = pick(1, 40);
        break;
      default:
        padding = pick(m, 4 * m + 300);
        break;  // N much larger than M
    }
    in.batch.num_actual_tokens = m + padding;
    const uint64_t negative_percent = *rc::gen::element<uint64_t>(0, 5, 30);  // negative common slots on real rows
    traces::Rng rng(*rc::gen::arbitrary<uint64_t>());
    for (int64_t t = 0; t < in.batch.num_actual_tokens; ++t) {
      const bool negative = t >= m || rng.chance(negative_percent, 100);
      in.batch.common_slot_mapping.push_back(negative ? -rng.range(1, 9) : rng.range(0, int64_t{1} << 30));
    }

    int64_t needed = 1;
    if (k == CacheKind::kCompressed) needed = max_seq / *in.cache.compress_ratio / in.cache.storage_block_size + 1;
    int64_t cols = needed;
    if (chance(20))
      cols = pick(0, needed);  // missing columns (W = 0 included)
    else if (chance(20))
      cols += pick(1, 3);
    in.block_table = table_of(in.batch.num_requests(), std::min<int64_t>(cols, 2048));
    if (k == CacheKind::kCompressed && chance(30)) in.cache.request_capacity = in.batch.num_requests() + pick(0, 10);
    return in;
  });
}

MetadataInput sample_metadata_input(uint64_t seed, int index, int size, std::optional<CacheKind> kind) {
  const rc::Random random(traces::Rng::mix(seed + 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(index + 1)));
  return metadata_inputs(kind)(random, size).value();
}

}  // namespace qsa::testing
