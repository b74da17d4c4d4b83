// SPEC 5, phase by phase. Built with -ffp-contract=off (SPEC 6).

#include "qsa/reference/step_update.hpp"

#include <cstring>

#include "qsa/reference/metadata.hpp"
#include "qsa/validate.hpp"

namespace qsa::reference {
namespace {

Bf16 load_bf16(const CacheBuffer& cache, int64_t slot, int64_t element) {
  Bf16 v = 0;
  std::memcpy(&v, cache.bytes.data() + cache.layout.byte_offset(slot, element), sizeof v);
  return v;
}

void store_bf16(CacheBuffer& cache, int64_t slot, int64_t element, Bf16 v) {
  std::memcpy(cache.bytes.data() + cache.layout.byte_offset(slot, element), &v, sizeof v);
}

// Stores a bf16 row in the store dtype at `dst` (elements of 2 or 1 bytes).
void store_row(const std::vector<Bf16>& row, StoreDtype dtype, uint8_t* dst) {
  for (size_t d = 0; d < row.size(); ++d) {
    if (dtype == StoreDtype::kBf16)
      std::memcpy(dst + 2 * d, &row[d], 2);
    else
      dst[d] = e4m3_from_bf16(row[d]);
  }
}

// Reading the ring as it was before the step: phase A runs completely before phase B.
class RingReader {
 public:
  RingReader(const StepInput& in, const CacheBuffer& ring) : in_(in), ring_(ring) {}

  // The slot of position m of request j, or -1 when its ring block is missing or past the cache.
  int64_t slot(int64_t j, int64_t m) const {
    if (in_.ring_block_table.cols == 0) return -1;
    const int64_t block = in_.ring_block_table.at(j, 0);
    if (block < 0 || block >= ring_.layout.num_blocks) return -1;
    return block * in_.config.ring_capacity + m % in_.config.ring_capacity;
  }

  std::vector<Bf16> key(int64_t j, int64_t m) const {
    std::vector<Bf16> key(static_cast<size_t>(in_.config.head_dim), 0);  // a missing block reads zeros
    const int64_t s = slot(j, m);
    if (s >= 0)
      for (int64_t d = 0; d < in_.config.head_dim; ++d) key[d] = load_bf16(ring_, s, d);
    return key;
  }

  std::array<int64_t, 3> position(int64_t j, int64_t m) const {
    std::array<int64_t, 3> pos{0, 0, 0};
    const int64_t s = slot(j, m);
    if (s >= 0)
      std::memcpy(pos.data(),
                  ring_.bytes.data() + ring_.layout.byte_offset(s, ring_position_offset(in_.config.head_dim)),
                  sizeof pos);
    return pos;
  }

 private:
  const StepInput& in_;
  const CacheBuffer& ring_;
};

bool in_table(const std::array<int64_t, 3>& pos, int64_t max_position) {
  for (int64_t p : pos)
    if (p < 0 || p >= max_position) return false;
  return true;
}

// Phase A for request j: every group closing in its chunk.
void compress_groups(const StepInput& in, int64_t j, const MetadataOutput& compressed_meta, const RingReader& ring,
                     CacheBuffer& compressed, StepStatus* status, std::vector<PooledGroup>* pooled) {
  const Batch& b = in.batch;
  const int64_t c = in.config.compress_ratio;
  const int64_t d = in.config.head_dim;
  const int64_t start = b.chunk_start(j);
  const int64_t first_row = b.query_start_loc[j];
  auto row_of = [&](int64_t m) { return first_row + (m - start); };

  for (int64_t g = start / c; g < b.seq_lens[j] / c; ++g) {
    const int64_t slot = compressed_meta.slot_mapping[row_of(g * c + c - 1)];
    if (slot < 0 || compressed.layout.past_the_cache(slot)) continue;

    std::vector<std::vector<Bf16>> members;
    for (int64_t m = g * c; m < g * c + c; ++m) {
      if (m >= start)
        members.emplace_back(in.keys.begin() + row_of(m) * d, in.keys.begin() + (row_of(m) + 1) * d);
      else
        members.push_back(ring.key(j, m));
    }

    std::array<int64_t, 3> position{g * c, g * c, g * c};
    if (in.config.ring_positions) {
      position = g * c >= start ? in.row_positions(row_of(g * c)) : ring.position(j, g * c);
      if (!in_table(position, in.config.max_position)) {
        *status = StepStatus::kPositionOutOfRange;
        continue;
      }
    }

    std::vector<const Bf16*> member_ptrs;
    for (const auto& member : members) member_ptrs.push_back(member.data());
    std::vector<Bf16> mean(static_cast<size_t>(d));
    pool_group(member_ptrs.data(), c, d, mean.data());
    if (pooled != nullptr) pooled->push_back(PooledGroup{j, g, mean});

    std::vector<Bf16> row(static_cast<size_t>(d));
    rms_norm(mean.data(), in.config.w_k.data(), d, in.config.eps, row.data());
    rope_neox(row.data(), d, in.config.rotary_dim, position, in.config.mrope_sections, in.config.cos_sin_data());
    store_row(row, in.config.store_dtype, compressed.bytes.data() + compressed.layout.byte_offset(slot, 0));
  }
}

// Phase B for request j: the chunk's last min(q, R) rows, by the ring metadata's slots.
void commit_ring(const StepInput& in, int64_t j, const MetadataOutput& ring_meta, CacheBuffer& ring) {
  const Batch& b = in.batch;
  for (int64_t t = b.query_start_loc[j]; t < b.query_start_loc[j + 1]; ++t) {
    const int64_t slot = ring_meta.slot_mapping[t];  // -1 except on the last min(q, R) rows
    if (slot < 0 || ring.layout.past_the_cache(slot)) continue;
    for (int64_t d = 0; d < in.config.head_dim; ++d) store_bf16(ring, slot, d, in.keys[t * in.config.head_dim + d]);
    if (in.config.ring_positions) {
      const std::array<int64_t, 3> pos = in.row_positions(t);
      std::memcpy(ring.bytes.data() + ring.layout.byte_offset(slot, ring_position_offset(in.config.head_dim)),
                  pos.data(), sizeof pos);
    }
  }
}

// The Q path for every row, padding included.
void transform_queries(const StepInput& in, StepOutput* output) {
  const int64_t d = in.config.head_dim;
  const int bytes = element_bytes(in.config.store_dtype);
  std::vector<Bf16> row(static_cast<size_t>(d));
  for (int64_t t = 0; t < in.num_tokens(); ++t) {
    const std::array<int64_t, 3> position = in.row_positions(t);
    for (int64_t h = 0; h < in.config.num_heads; ++h) {
      const int64_t offset = (t * in.config.num_heads + h) * d;
      rms_norm(in.queries.data() + offset, in.config.w_q.data(), d, in.config.eps, row.data());
      rope_neox(row.data(), d, in.config.rotary_dim, position, in.config.mrope_sections, in.config.cos_sin_data());
      store_row(row, in.config.store_dtype, output->q_out.data() + offset * bytes);
    }
  }
}

}  // namespace

Status step_update(const StepInput& input, StepCaches* caches, StepOutput* output, Error* error,
                   std::vector<PooledGroup>* pooled) {
  if (Status s = validate_step(input, *caches, error); s != Status::kOk) return s;
  MetadataOutput compressed_meta;
  MetadataOutput ring_meta;
  if (Status s = build_metadata(input.compressed_metadata_input(), &compressed_meta, error); s != Status::kOk) return s;
  if (Status s = build_metadata(input.ring_metadata_input(), &ring_meta, error); s != Status::kOk) return s;

  StepOutput out;
  out.q_out.assign(static_cast<size_t>(input.num_tokens() * input.config.num_heads * input.config.head_dim *
                                       element_bytes(input.config.store_dtype)),
                   0);
  const Batch& b = input.batch;
  const RingReader ring(input, caches->ring);
  for (int64_t j = 0; j < b.num_requests(); ++j)
    if (b.query_len(j) > 0)
      compress_groups(input, j, compressed_meta, ring, caches->compressed, &out.step_status, pooled);
  for (int64_t j = 0; j < b.num_requests(); ++j)
    if (b.query_len(j) > 0) commit_ring(input, j, ring_meta, caches->ring);
  transform_queries(input, &out);
  *output = std::move(out);
  return Status::kOk;
}

}  // namespace qsa::reference
