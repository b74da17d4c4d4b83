#include "generators/invalid_inputs.hpp"

#include <algorithm>

#include "generators/metadata_generators.hpp"

namespace qsa::testing {
namespace {

// Breaks one rule of SPEC 1.4 in a valid input.
void break_one_rule(MetadataInput& in) {
  Batch& b = in.batch;
  switch (*rc::gen::inRange(0, 12)) {
    case 0:
      in.cache.kind = static_cast<CacheKind>(*rc::gen::inRange(3, 9));
      break;
    case 1:
      in.cache.compress_ratio = *rc::gen::element<int64_t>(0, 1, 1025, -4);
      in.cache.kind = CacheKind::kCompressed;
      break;
    case 2:
      in.cache.kind = CacheKind::kRing;
      in.cache.ring_capacity = *rc::gen::element<int64_t>(0, -1, (1 << 20) + 1);
      break;
    case 3:
      b.reorder_batch_threshold = *rc::gen::element<int64_t>(0, -3);
      break;
    case 4:
      b.query_start_loc.resize(*rc::gen::inRange<size_t>(0, 2));
      break;
    case 5:
      b.query_start_loc[0] = *rc::gen::inRange<int64_t>(1, 5);
      break;
    case 6:
      if (b.query_start_loc.size() > 2) std::swap(b.query_start_loc[1], b.query_start_loc.back());
      b.query_start_loc.back() -= 1;
      break;
    case 7:
      b.num_actual_tokens = *rc::gen::element<int64_t>(b.num_mapped_tokens() - 1, (int64_t{1} << 24) + 1);
      break;
    case 8:
      b.seq_lens.push_back(5);
      break;
    case 9:
      b.seq_lens[0] = *rc::gen::inRange<int64_t>(-5, 0) - 1;
      break;
    case 10:
      in.cache.kind = CacheKind::kPassthrough;
      in.cache.compress_ratio.reset();
      if (b.num_actual_tokens > b.num_mapped_tokens())
        b.common_slot_mapping[b.num_mapped_tokens()] = 7;
      else
        b.common_slot_mapping.clear();
      break;
    default:
      in.block_table.rows = std::max<int64_t>(0, b.num_requests() - 1);
      break;
  }
}

}  // namespace

rc::Gen<MetadataInput> possibly_invalid_metadata_input() {
  return rc::gen::exec([] {
    MetadataInput in = *metadata_inputs();
    if (*rc::gen::arbitrary<bool>()) break_one_rule(in);
    return in;
  });
}

}  // namespace qsa::testing
