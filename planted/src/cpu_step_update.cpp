// SPEC 5 phase by phase, as the reference computes it, with the step-update bugs planted.
// Built with -ffp-contract=off (SPEC 6), like the reference step update.

#include "cpu_step_update.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "cpu_metadata.hpp"
#include "cpu_numerics.hpp"
#include "qsa/validate.hpp"

namespace qsa::planted {
namespace {

using Position = std::array<int64_t, 3>;

// Row of position m inside its ring block. The short ring wraps one row early.
int64_t ring_row(Bug bug, int64_t m, int64_t r) {
  if (bug == Bug::kRingIndexOffByOne) return (m + 1) % r;
  if (bug == Bug::kRingOneRowShort) return m % std::max<int64_t>(1, r - 1);
  return m % r;
}

// Byte offset of element `element` of the row at `slot`; the packed bugs drop a stride's padding.
int64_t byte_offset(Bug bug, const CacheLayout& l, int64_t slot, int64_t element) {
  const int64_t row_stride = bug == Bug::kCacheRowsPacked ? l.width : l.row_stride;
  const int64_t block_stride = bug == Bug::kCacheBlocksPacked ? l.rows * l.row_stride : l.block_stride;
  return ((slot / l.rows) * block_stride + (slot % l.rows) * row_stride + element) * l.element_bytes;
}

// The bytes of the row at `slot` as the bug addresses them: nullptr when that lies outside the
// buffer (a kernel would fault or write a neighbour's page; here it writes or reads nothing).
uint8_t* row_at(Bug bug, CacheBuffer& cache, int64_t slot, int64_t element, int64_t bytes) {
  const int64_t offset = byte_offset(bug, cache.layout, slot, element);
  if (offset < 0 || offset + bytes > static_cast<int64_t>(cache.bytes.size())) return nullptr;
  return cache.bytes.data() + offset;
}

// NaN -> 0, +-inf -> +-0x7F7F (the largest finite bf16), as torch.nan_to_num does in bf16.
Bf16 nan_to_num(Bf16 v) {
  if ((v & 0x7F80u) != 0x7F80u) return v;
  if ((v & 0x7Fu) != 0) return 0;
  return static_cast<Bf16>((v & 0x8000u) | 0x7F7Fu);
}

float effective_eps(Bug bug, float eps) { return bug == Bug::kEpsClampedToOne ? std::min(eps, 1.0f) : eps; }

void store_row(Bug bug, const std::vector<Bf16>& row, StoreDtype dtype, uint8_t* dst) {
  for (size_t d = 0; d < row.size(); ++d) {
    if (dtype == StoreDtype::kBf16)
      std::memcpy(dst + 2 * d, &row[d], 2);
    else
      dst[d] = e4m3_from_bf16(bug, row[d]);
  }
}

// Reads the ring for group pooling. Whether it sees the ring "as it was before the step" depends
// only on when it is called (before or after commit_ring).
class RingReader {
 public:
  RingReader(Bug bug, const StepInput& in, CacheBuffer& ring) : bug_(bug), in_(in), ring_(ring) {}

  std::vector<Bf16> key(int64_t j, int64_t m) const {
    std::vector<Bf16> key(static_cast<size_t>(in_.config.head_dim), 0);  // a missing block reads zeros
    const int64_t s = slot(j, bug_ == Bug::kPoolWrongRingRow ? m + 1 : m);
    const auto bytes = static_cast<int64_t>(key.size() * sizeof(Bf16));
    if (const uint8_t* src = s >= 0 ? row_at(bug_, ring_, s, 0, bytes) : nullptr)
      std::memcpy(key.data(), src, static_cast<size_t>(bytes));
    return key;
  }

  Position position(int64_t j, int64_t m) const {
    Position pos{0, 0, 0};
    const int64_t s = slot(j, m);
    const int64_t at = ring_position_offset(in_.config.head_dim);
    if (const uint8_t* src = s >= 0 ? row_at(bug_, ring_, s, at, sizeof pos) : nullptr)
      std::memcpy(pos.data(), src, sizeof pos);
    return pos;
  }

 private:
  int64_t slot(int64_t j, int64_t m) const {
    if (in_.ring_block_table.cols == 0) return -1;
    const int64_t block = table_entry(bug_, in_.ring_block_table, j, 0);
    if (block < 0 || block >= ring_.layout.num_blocks) return -1;
    return block * in_.config.ring_capacity + ring_row(bug_, m, in_.config.ring_capacity);
  }

  Bug bug_;
  const StepInput& in_;
  CacheBuffer& ring_;  // read only (row_at() serves reads and writes)
};

bool in_table(const Position& pos, int64_t max_position) {
  return std::all_of(pos.begin(), pos.end(), [max_position](int64_t p) { return p >= 0 && p < max_position; });
}

// The C members of group g of request j: this step's keys from s_j on, the ring before that.
std::vector<std::vector<Bf16>> group_members(const StepInput& in, int64_t j, int64_t g, const RingReader& ring) {
  const int64_t c = in.config.compress_ratio;
  const int64_t d = in.config.head_dim;
  const int64_t start = in.batch.chunk_start(j);
  std::vector<std::vector<Bf16>> members;
  for (int64_t m = g * c; m < g * c + c; ++m) {
    const int64_t row = in.batch.query_start_loc[j] + (m - start);
    if (m >= start)
      members.emplace_back(in.keys.begin() + row * d, in.keys.begin() + (row + 1) * d);
    else
      members.push_back(ring.key(j, m));
  }
  return members;
}

// The compressed slot of a group that closed before request j's chunk (its closing row is not in
// the step, so the metadata has no slot for it): from the block table, as SPEC 2 would give it.
int64_t slot_before_chunk(Bug bug, const StepInput& in, int64_t j, int64_t g) {
  const int64_t s = in.config.storage_block_size;
  if (g / s >= in.block_table.cols) return -1;
  const int64_t block = table_entry(bug, in.block_table, j, g / s);
  return block < 0 ? -1 : block * s + g % s;
}

// Phase A for request j: every group closing in its chunk.
void compress_groups(Bug bug, Arithmetic arithmetic, const StepInput& in, int64_t j, const MetadataOutput& meta,
                     const RingReader& ring, CacheBuffer& compressed, StepStatus* status) {
  const int64_t c = in.config.compress_ratio;
  const int64_t d = in.config.head_dim;
  const int64_t start = in.batch.chunk_start(j);
  const int64_t first_row = in.batch.query_start_loc[j];
  int64_t first_group = start / c + (bug == Bug::kSkipsFirstClosedGroup ? 1 : 0);
  // The prefill path (chunks of more than T rows) tiles a chunk by compressed blocks; its first
  // tile starts one group early when the chunk starts on a block boundary.
  const Batch& b = in.batch;
  if (bug == Bug::kReclosesGroupBeforeChunk && start > 0 && b.query_len(j) > b.reorder_batch_threshold &&
      start % (c * in.config.storage_block_size) == 0)
    first_group = (start - 1) / c;
  for (int64_t g = first_group; g < in.batch.seq_lens[j] / c; ++g) {
    const int64_t slot = g * c + c - 1 >= start ? meta.slot_mapping[first_row + (g * c + c - 1 - start)]
                                                : slot_before_chunk(bug, in, j, g);
    if (slot < 0 || compressed.layout.past_the_cache(slot)) continue;
    Position position{g * c, g * c, g * c};
    if (in.config.ring_positions && bug != Bug::kGroupPositionIgnoresRingTail) {
      position = g * c >= start ? in.row_positions(first_row + (g * c - start)) : ring.position(j, g * c);
      if (!in_table(position, in.config.max_position)) {
        *status = StepStatus::kPositionOutOfRange;
        continue;
      }
    }
    const std::vector<std::vector<Bf16>> members = group_members(in, j, g, ring);
    std::vector<const Bf16*> pointers;
    for (const auto& member : members) pointers.push_back(member.data());
    std::vector<Bf16> mean(static_cast<size_t>(d)), row(static_cast<size_t>(d));
    pool_group(bug, pointers.data(), c, d, mean.data(), arithmetic);
    rms_norm(bug, mean.data(), in.config.w_k.data(), d, effective_eps(bug, in.config.eps), row.data(), arithmetic);
    rope_neox(bug, row.data(), d, in.config.rotary_dim, position, in.config.mrope_sections, in.config.cos_sin_data(),
              arithmetic);
    if (uint8_t* dst = row_at(bug, compressed, slot, 0, d * compressed.layout.element_bytes))
      store_row(bug, row, in.config.store_dtype, dst);
  }
}

// Phase B for request j: the rows the ring metadata gives a slot.
void commit_ring(Bug bug, const StepInput& in, int64_t j, const MetadataOutput& meta, CacheBuffer& ring) {
  const int64_t d = in.config.head_dim;
  for (int64_t t = in.batch.query_start_loc[j]; t < in.batch.query_start_loc[j + 1]; ++t) {
    const int64_t slot = meta.slot_mapping[t];
    if (slot < 0 || ring.layout.past_the_cache(slot)) continue;
    if (uint8_t* dst = row_at(bug, ring, slot, 0, d * 2))
      std::memcpy(dst, in.keys.data() + t * d, static_cast<size_t>(d) * sizeof(Bf16));
    if (in.config.ring_positions && bug != Bug::kPositionTailNotWritten) {
      const Position pos = in.row_positions(t);
      if (uint8_t* dst = row_at(bug, ring, slot, ring_position_offset(d), sizeof pos))
        std::memcpy(dst, pos.data(), sizeof pos);
    }
  }
}

// The Q path: every row, padding included, unless the launch stops at M.
void transform_queries(Bug bug, Arithmetic arithmetic, const StepInput& in, std::vector<uint8_t>& q_out) {
  const int64_t d = in.config.head_dim;
  const int bytes = element_bytes(in.config.store_dtype);
  const int64_t rows = bug == Bug::kQOutSkipsPadding ? in.batch.num_mapped_tokens() : in.num_tokens();
  std::vector<Bf16> row(static_cast<size_t>(d));
  for (int64_t t = 0; t < rows; ++t) {
    for (int64_t h = 0; h < in.config.num_heads; ++h) {
      const int64_t offset = (t * in.config.num_heads + h) * d;
      rms_norm(bug, in.queries.data() + offset, in.config.w_q.data(), d, effective_eps(bug, in.config.eps), row.data(),
               arithmetic);
      const std::array<int64_t, 3> position = bug == Bug::kPaddingPositionZero && t >= in.batch.num_mapped_tokens()
                                                  ? std::array<int64_t, 3>{0, 0, 0}
                                                  : in.row_positions(t);
      rope_neox(bug, row.data(), d, in.config.rotary_dim, position, in.config.mrope_sections, in.config.cos_sin_data(),
                arithmetic);
      store_row(bug, row, in.config.store_dtype, q_out.data() + offset * bytes);
    }
  }
}

}  // namespace

Status step_update(Bug bug, const StepInput& given, StepCaches* caches, StepOutput* output, Error* error,
                   Arithmetic arithmetic) {
  if (Status s = validate_step(given, *caches, error); s != Status::kOk) return s;
  if (bug == Bug::kAllPaddingStepSkipped && given.batch.num_mapped_tokens() == 0) return Status::kOk;
  StepInput sanitized;
  if (bug == Bug::kWeightsNanToNum) {
    sanitized = given;
    for (std::vector<Bf16>* w : {&sanitized.config.w_k, &sanitized.config.w_q})
      for (Bf16& v : *w) v = nan_to_num(v);
  }
  const StepInput& input = bug == Bug::kWeightsNanToNum ? sanitized : given;
  MetadataOutput compressed_meta;
  MetadataOutput ring_meta;
  if (Status s = build_metadata(bug, input.compressed_metadata_input(), &compressed_meta, error); s != Status::kOk)
    return s;
  if (Status s = build_metadata(bug, input.ring_metadata_input(), &ring_meta, error); s != Status::kOk) return s;

  StepOutput out;
  const auto q_bytes = static_cast<size_t>(input.num_tokens() * input.config.num_heads * input.config.head_dim *
                                           element_bytes(input.config.store_dtype));
  if (output->q_out.size() == q_bytes)
    out.q_out = std::move(output->q_out);  // the caller's buffer, as a kernel writes it
  else
    out.q_out.assign(q_bytes, 0);

  const Batch& b = input.batch;
  const RingReader ring(bug, input, caches->ring);
  // The requests a loop visits: all, or under the bug those before the first zero-length one.
  int64_t requests = b.num_requests();
  if (bug == Bug::kStopsAtZeroLengthRequest)
    for (int64_t j = 0; j < b.num_requests(); ++j)
      if (b.query_len(j) == 0) {
        requests = j;
        break;
      }
  auto read_phase = [&] {
    for (int64_t j = 0; j < requests; ++j)
      if (b.query_len(j) > 0)
        compress_groups(bug, arithmetic, input, j, compressed_meta, ring, caches->compressed, &out.step_status);
  };
  auto commit_phase = [&] {
    for (int64_t j = 0; j < requests; ++j)
      if (b.query_len(j) > 0) commit_ring(bug, input, j, ring_meta, caches->ring);
  };
  if (bug == Bug::kRingReadAfterCommit) {
    commit_phase();
    read_phase();
  } else {
    read_phase();
    commit_phase();
  }
  transform_queries(bug, arithmetic, input, out.q_out);
  *output = std::move(out);
  return Status::kOk;
}

}  // namespace qsa::planted
