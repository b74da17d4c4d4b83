// Validation of the step-update inputs (SPEC 1.4, the part after the metadata checks).

#include <cmath>
#include <string>
#include <unordered_map>

#include "qsa/input_fields.hpp"
#include "qsa/reference/metadata.hpp"
#include "qsa/validate.hpp"

namespace qsa {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

bool is_power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

Status check_size(Rule rule, size_t actual, int64_t expected, const std::string& shape, Error* error) {
  if (static_cast<int64_t>(actual) == expected) return Status::kOk;
  return invalid(error, rule, -1,
                 "has " + str(static_cast<int64_t>(actual)) + " elements, expected " + shape + " = " + str(expected));
}

Status check_cache(Rule rule, const CacheBuffer& cache, int64_t rows, int64_t width, int element_bytes, Error* error) {
  const CacheLayout& l = cache.layout;
  auto fail = [&](const std::string& why) { return invalid(error, rule, -1, why); };
  if (l.rows != rows) return fail("rows per block is " + str(l.rows) + ", expected " + str(rows));
  if (l.width != width) return fail("row width is " + str(l.width) + " elements, expected " + str(width));
  if (l.element_bytes != element_bytes)
    return fail("element size is " + str(l.element_bytes) + " bytes, expected " + str(element_bytes));
  if (l.num_blocks < 0 || l.num_blocks > kMaxInt32)
    return fail("num_blocks " + str(l.num_blocks) + " is outside [0, 2^31)");
  if (l.row_stride < l.width || l.row_stride > (int64_t{1} << 20))
    return fail("row stride " + str(l.row_stride) + " must be in [width, 2^20]");
  if (l.block_stride < l.rows * l.row_stride || l.block_stride > (int64_t{1} << 32))
    return fail("block stride " + str(l.block_stride) + " must be in [rows * row stride, 2^32]");
  if (static_cast<int64_t>(cache.bytes.size()) != l.size_bytes())
    return fail("holds " + str(static_cast<int64_t>(cache.bytes.size())) + " bytes, the layout needs " +
                str(l.size_bytes()));
  return Status::kOk;
}

Status check_parameters(const StepInput& in, Error* error) {
  if (!is_power_of_two(in.config.head_dim) || in.config.head_dim < 32 || in.config.head_dim > 512)
    return invalid(error, Rule::kHeadDimOutOfRange, -1,
                   "D = " + str(in.config.head_dim) + " must be a power of two in [32, 512]");
  if (in.config.rotary_dim < 2 || in.config.rotary_dim > in.config.head_dim || in.config.rotary_dim % 2 != 0)
    return invalid(error, Rule::kRotaryDimOutOfRange, -1,
                   "rd = " + str(in.config.rotary_dim) + " must be even and in [2, D]");
  if (in.config.mrope_sections) {
    const auto& s = *in.config.mrope_sections;
    for (int i = 0; i < 3; ++i)
      if (s[i] < 0) return invalid(error, Rule::kMropeSectionsOutOfRange, i, "sections must be non-negative");
    if (s[0] + s[1] + s[2] != in.config.rotary_dim / 2)
      return invalid(error, Rule::kMropeSectionsWrongSum, -1,
                     "sections sum to " + str(s[0] + s[1] + s[2]) + ", rd / 2 = " + str(in.config.rotary_dim / 2));
  }
  if (in.config.num_heads < 1 || in.config.num_heads > 1024)
    return invalid(error, Rule::kNumHeadsOutOfRange, -1, "HQ = " + str(in.config.num_heads) + " must be in [1, 1024]");
  if (!std::isfinite(in.config.eps) || !(in.config.eps > 0.0f))
    return invalid(error, Rule::kEpsOutOfRange, -1, "eps must be finite and > 0");
  return Status::kOk;
}

Status check_shapes(const StepInput& in, const StepCaches& caches, Error* error) {
  const int64_t n = in.num_tokens();
  const int64_t d = in.config.head_dim;
  Status s = Status::kOk;
  if ((s = check_size(Rule::kKeysWrongShape, in.keys.size(), n * d, "N x D", error)) != Status::kOk) return s;
  if ((s = check_size(Rule::kQueriesWrongShape, in.queries.size(), n * in.config.num_heads * d, "N x HQ x D", error)) !=
      Status::kOk)
    return s;
  if (in.position_axes != 1 && in.position_axes != 3)
    return invalid(error, Rule::kPositionsWrongShape, -1,
                   "positions must be [N] or [3, N], got " + str(in.position_axes) + " axes");
  if ((s = check_size(Rule::kPositionsWrongShape, in.positions.size(), in.position_axes * n,
                      in.position_axes == 1 ? "N" : "3 x N", error)) != Status::kOk)
    return s;
  if ((s = check_cache(Rule::kRingWrongShape, caches.ring, in.config.ring_capacity,
                       ring_row_width(d, in.config.ring_positions), 2, error)) != Status::kOk)
    return s;
  if ((s = check_cache(Rule::kCompressedWrongShape, caches.compressed, in.config.storage_block_size, d,
                       element_bytes(in.config.store_dtype), error)) != Status::kOk)
    return s;
  if ((s = check_size(Rule::kWKWrongShape, in.config.w_k.size(), d, "D", error)) != Status::kOk) return s;
  if ((s = check_size(Rule::kWQWrongShape, in.config.w_q.size(), d, "D", error)) != Status::kOk) return s;
  if (in.config.max_position < 1 || in.config.max_position > kMaxInt32)
    return invalid(error, Rule::kCosSinWrongShape, -1,
                   "the table needs between 1 and 2^31 - 1 rows, got " + str(in.config.max_position));
  return check_size(Rule::kCosSinWrongShape, in.config.cos_sin_size(), in.config.max_position * in.config.rotary_dim,
                    "max_position x rd", error);
}

Status check_positions(const StepInput& in, Error* error) {
  for (size_t i = 0; i < in.positions.size(); ++i)
    if (in.positions[i] < 0 || in.positions[i] >= in.config.max_position)
      return invalid(
          error, Rule::kPositionsOutOfRange, static_cast<int64_t>(i),
          "position " + str(in.positions[i]) + " is outside [0, max_position = " + str(in.config.max_position) + ")");
  if (in.config.ring_positions)
    return Status::kOk;  // group positions then come from the ring tail, checked at run time
  const Batch& b = in.batch;
  const int64_t c = in.config.compress_ratio;
  for (int64_t j = 0; j < b.num_requests(); ++j) {
    if (b.query_len(j) == 0) continue;
    for (int64_t g = b.chunk_start(j) / c; g < b.seq_lens[j] / c; ++g)
      if (g * c >= in.config.max_position)
        return invalid(error, Rule::kPositionsOutOfRange, b.query_start_loc[j] + (g * c + c - 1 - b.chunk_start(j)),
                       "group position " + str(g * c) + " of request " + str(j) +
                           " is outside [0, max_position = " + str(in.config.max_position) + ")");
  }
  return Status::kOk;
}

// Two rows writing one slot (a slot that is written: non-negative and inside the cache).
Status check_duplicate_slots(const std::vector<int64_t>& slots, const CacheLayout& layout, const char* cache,
                             Error* error) {
  std::unordered_map<int64_t, int64_t> first_row;
  for (size_t t = 0; t < slots.size(); ++t) {
    if (slots[t] < 0 || layout.past_the_cache(slots[t])) continue;
    auto [it, inserted] = first_row.emplace(slots[t], static_cast<int64_t>(t));
    if (!inserted)
      return invalid(error, Rule::kSlotsDuplicate, static_cast<int64_t>(t),
                     std::string("rows ") + str(it->second) + " and " + str(static_cast<int64_t>(t)) + " both write " +
                         cache + " slot " + str(slots[t]));
  }
  return Status::kOk;
}

Status check_shared_ring_blocks(const StepInput& in, const CacheLayout& ring, Error* error) {
  const Batch& b = in.batch;
  if (in.ring_block_table.cols == 0) return Status::kOk;
  std::unordered_map<int64_t, int64_t> owner;
  for (int64_t j = 0; j < b.num_requests(); ++j) {
    const int64_t block = in.ring_block_table.at(j, 0);
    if (b.query_len(j) == 0 || block < 0 || block >= ring.num_blocks) continue;
    auto [it, inserted] = owner.emplace(block, j);
    if (!inserted)
      return invalid(
          error, Rule::kRingBlockTableSharedBlock, j,
          "requests " + str(it->second) + " and " + str(j) + " both use ring block " + str(block) + " in one step");
  }
  return Status::kOk;
}

}  // namespace

Status validate_step(const StepInput& in, const StepCaches& caches, Error* error) {
  MetadataOutput compressed;
  MetadataOutput ring;
  Status s = reference::build_metadata(in.compressed_metadata_input(), &compressed, error);
  if (s != Status::kOk) return s;
  s = reference::build_metadata(in.ring_metadata_input(), &ring, error);
  if (s != Status::kOk) {
    if (error != nullptr && error->field == "block_table") error->field = "ring_block_table";
    return s;
  }
  if ((s = check_parameters(in, error)) != Status::kOk) return s;
  if ((s = check_shapes(in, caches, error)) != Status::kOk) return s;
  if ((s = check_positions(in, error)) != Status::kOk) return s;
  if ((s = check_duplicate_slots(compressed.slot_mapping, caches.compressed.layout, "compressed", error)) !=
      Status::kOk)
    return s;
  if ((s = check_duplicate_slots(ring.slot_mapping, caches.ring.layout, "ring", error)) != Status::kOk) return s;
  return check_shared_ring_blocks(in, caches.ring.layout, error);
}

}  // namespace qsa
