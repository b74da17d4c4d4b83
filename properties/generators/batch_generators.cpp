#include "generators/batch_generators.hpp"

#include <algorithm>

#include "qsa/traces/json_codec.hpp"

namespace qsa {

void showValue(const MetadataInput& input, std::ostream& os) { os << traces::metadata_input_to_json(input).dump(); }

namespace testing {
namespace {

enum class Shape { kRandom, kOneRequest, kOneToken, kAllPadding, kZeroLengthInside, kMuchPadding, kUniformDecode };

struct Request {
  int64_t start;
  int64_t length;
};

std::vector<Request> gen_requests(Shape shape, int64_t drafts) {
  auto request = [](int64_t max_len) { return Request{*rc::gen::inRange<int64_t>(0, 300), *rc::gen::inRange<int64_t>(1, max_len + 1)}; };
  std::vector<Request> out;
  switch (shape) {
    case Shape::kOneRequest: out.push_back(request(64)); break;
    case Shape::kOneToken: out.push_back({*rc::gen::inRange<int64_t>(0, 300), 1}); break;
    case Shape::kAllPadding: out.assign(static_cast<size_t>(*rc::gen::inRange(1, 6)), Request{0, 0}); return out;
    case Shape::kUniformDecode: {
      const int64_t n = *rc::gen::inRange(1, 24);
      for (int64_t i = 0; i < n; ++i) out.push_back({*rc::gen::inRange<int64_t>(0, 300), 1 + drafts});
      break;
    }
    case Shape::kZeroLengthInside: {
      const int64_t n = *rc::gen::inRange(2, 8);
      for (int64_t i = 0; i < n; ++i) {
        if (*rc::gen::inRange(0, 3) == 0) out.push_back({*rc::gen::inRange<int64_t>(0, 50), 0});  // zero-length, maybe with context
        else out.push_back(request(12));
      }
      break;
    }
    case Shape::kMuchPadding:
    case Shape::kRandom: {
      const int64_t n = *rc::gen::inRange(1, 10);
      for (int64_t i = 0; i < n; ++i) out.push_back(*rc::gen::inRange(0, 6) == 0 ? Request{0, 0} : request(40));
      break;
    }
  }
  const int64_t padded = *rc::gen::weightedElement<int64_t>({{3, 0}, {1, 1}, {1, 3}});
  for (int64_t i = 0; i < padded; ++i) out.push_back({0, 0});
  return out;
}

BlockTable gen_block_table(int64_t rows, int64_t needed_cols) {
  const int64_t cols = *rc::gen::weightedOneOf<int64_t>({{4, rc::gen::just(needed_cols)},
                                                         {1, rc::gen::inRange<int64_t>(0, needed_cols + 1)},   // missing columns
                                                         {1, rc::gen::inRange<int64_t>(needed_cols, needed_cols + 3)}});
  std::vector<std::vector<int32_t>> dense(static_cast<size_t>(rows), std::vector<int32_t>(static_cast<size_t>(cols)));
  const bool negatives = *rc::gen::inRange(0, 3) == 0;
  for (auto& row : dense)
    for (auto& entry : row) entry = negatives && *rc::gen::inRange(0, 5) == 0 ? -1 : *rc::gen::inRange<int32_t>(0, 64);
  switch (*rc::gen::inRange(0, 3)) {
    case 0: return BlockTable::column_major(dense);
    case 1: {  // a slice of a wider table: row stride beyond the width, an offset before column 0
      BlockTable table = BlockTable::from_rows(dense);
      const int64_t pad = *rc::gen::inRange<int64_t>(1, 4);
      BlockTable sliced{std::vector<int32_t>(static_cast<size_t>(rows * (cols + pad) + pad), -9), rows, cols, cols + pad, 1};
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) sliced.storage[static_cast<size_t>(r * (cols + pad) + c)] = table.at(r, c);
      return sliced;
    }
    default: return BlockTable::from_rows(dense);
  }
}

MetadataInput gen_valid_input() {
  MetadataInput in;
  in.cache.kind = *rc::gen::element(CacheKind::kCompressed, CacheKind::kRing, CacheKind::kPassthrough);
  const int64_t drafts = *rc::gen::inRange<int64_t>(0, 5);
  switch (in.cache.kind) {
    case CacheKind::kCompressed:
      in.cache.compress_ratio = *rc::gen::weightedOneOf<int64_t>({{3, rc::gen::element<int64_t>(2, 4, 8, 16)}, {1, rc::gen::inRange<int64_t>(2, 33)}});
      in.cache.storage_block_size = *rc::gen::inRange<int64_t>(1, 9);
      break;
    case CacheKind::kRing:
      in.cache.ring_capacity = *rc::gen::inRange<int64_t>(1, 17);
      if (*rc::gen::arbitrary<bool>()) in.cache.compress_ratio = *rc::gen::inRange<int64_t>(1, 9);
      break;
    case CacheKind::kPassthrough:
      if (*rc::gen::arbitrary<bool>()) in.cache.compress_ratio = 1;
      break;
  }
  in.batch.reorder_batch_threshold = *rc::gen::element<int64_t>(1, 1 + drafts);
  const Shape shape = *rc::gen::element(Shape::kRandom, Shape::kRandom, Shape::kOneRequest, Shape::kOneToken, Shape::kAllPadding,
                                        Shape::kZeroLengthInside, Shape::kMuchPadding, Shape::kUniformDecode, Shape::kUniformDecode);
  const std::vector<Request> requests = gen_requests(shape, drafts);
  in.batch.query_start_loc = {0};
  int64_t max_seq = 0;
  for (const Request& r : requests) {
    in.batch.query_start_loc.push_back(in.batch.query_start_loc.back() + r.length);
    in.batch.seq_lens.push_back(r.start + r.length);
    max_seq = std::max(max_seq, r.start + r.length);
  }
  const int64_t m = in.batch.query_start_loc.back();
  const int64_t padding = shape == Shape::kMuchPadding ? *rc::gen::inRange<int64_t>(m + 1, 8 * m + 300)
                                                       : *rc::gen::weightedOneOf<int64_t>({{3, rc::gen::just<int64_t>(0)}, {1, rc::gen::inRange<int64_t>(1, 9)}});
  in.batch.num_actual_tokens = m + padding;
  for (int64_t t = 0; t < in.batch.num_actual_tokens; ++t) {
    const bool real = t < m;
    const bool negative = !real || *rc::gen::inRange(0, 10) == 0;  // negative common slots on some real rows
    in.batch.common_slot_mapping.push_back(negative ? -*rc::gen::inRange<int64_t>(1, 3) : *rc::gen::inRange<int64_t>(0, 100000));
  }
  int64_t needed = 1;
  if (in.cache.kind == CacheKind::kCompressed) needed = max_seq / *in.cache.compress_ratio / in.cache.storage_block_size + 1;
  in.block_table = gen_block_table(in.batch.num_requests() + *rc::gen::inRange<int64_t>(0, 2), std::min<int64_t>(needed, 64));
  if (in.cache.kind == CacheKind::kCompressed && *rc::gen::inRange(0, 3) == 0)
    in.cache.request_capacity = in.batch.num_requests() + *rc::gen::inRange<int64_t>(0, 4);
  return in;
}

// Breaks one rule of SPEC 1.4 in a valid input.
void break_one_rule(MetadataInput& in) {
  Batch& b = in.batch;
  switch (*rc::gen::inRange(0, 12)) {
    case 0: in.cache.kind = static_cast<CacheKind>(*rc::gen::inRange(3, 9)); break;
    case 1: in.cache.compress_ratio = *rc::gen::element<int64_t>(0, 1, 1025, -4); in.cache.kind = CacheKind::kCompressed; break;
    case 2: in.cache.kind = CacheKind::kRing; in.cache.ring_capacity = *rc::gen::element<int64_t>(0, -1, (1 << 20) + 1); break;
    case 3: b.reorder_batch_threshold = *rc::gen::element<int64_t>(0, -3); break;
    case 4: b.query_start_loc.resize(*rc::gen::inRange<size_t>(0, 2)); break;
    case 5: b.query_start_loc[0] = *rc::gen::inRange<int64_t>(1, 5); break;
    case 6:
      if (b.query_start_loc.size() > 2) std::swap(b.query_start_loc[1], b.query_start_loc.back());
      b.query_start_loc.back() -= 1;
      break;
    case 7: b.num_actual_tokens = *rc::gen::element<int64_t>(b.num_mapped_tokens() - 1, (int64_t{1} << 24) + 1); break;
    case 8: b.seq_lens.push_back(5); break;
    case 9: b.seq_lens[0] = *rc::gen::inRange<int64_t>(-5, 0) - 1; break;
    case 10:
      in.cache.kind = CacheKind::kPassthrough;
      in.cache.compress_ratio.reset();
      if (b.num_actual_tokens > b.num_mapped_tokens()) b.common_slot_mapping[b.num_mapped_tokens()] = 7;
      else b.common_slot_mapping.clear();
      break;
    default: in.block_table.rows = std::max<int64_t>(0, b.num_requests() - 1); break;
  }
}

}  // namespace

rc::Gen<MetadataInput> arbitrary_metadata_input() { return rc::gen::exec(gen_valid_input); }

rc::Gen<MetadataInput> possibly_invalid_metadata_input() {
  return rc::gen::exec([] {
    MetadataInput in = gen_valid_input();
    if (*rc::gen::arbitrary<bool>()) break_one_rule(in);
    return in;
  });
}

}  // namespace testing
}  // namespace qsa
