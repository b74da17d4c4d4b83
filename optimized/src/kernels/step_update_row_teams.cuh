#pragma once
// step_update_row_teams_kernel: the fused step update of SPEC 5. A *team* of lanes owns one
// D-wide row at a time, each lane a contiguous chunk of 8 (16 for D = 512) elements
// (step_lane_io.cuh); the row transform is step_row_transform.cuh. Every item_stride-th block runs
// k-work items (one closing group each; item (j, 0) also commits request j's ring suffix after its
// own ring reads); the others run the Q path, one token row (every head) per team.
//
// Both work units are latency chains (the work item, then its request, then its members), so every
// load that does not depend on an earlier one is issued before the first of them is used.

#include <cstdint>

#include "kernels/programmatic_launch.cuh"
#include "kernels/step_q_halves.cuh"
#include "kernels/step_row_transform.cuh"
#include "kernels/step_update_policy.cuh"

namespace qsa::cuda::detail {

// One token row of the Q path, every head, in passes of H heads whose loads, shuffles and stores
// interleave (straight-line code: a missing head is computed on zeros and not stored). The next
// pass's loads are issued before the current pass is computed.
template <int D, typename Policy, bool Fast, int H>
__device__ void q_row(const StepParams& p, int64_t t, uint32_t axes, const float (&gain)[TeamShape<D>::kElems],
                      uint16_t* scratch, int lane) {
  constexpr int E = TeamShape<D>::kElems;
  const int64_t rows = Policy::q_path_rows(p);
  const bool active = t < rows;
  const int h_end = p.num_heads;
  // This lane's chunk of head 0, in and out; head h is h·D elements on (one add per head, not the
  // 64-bit row arithmetic again).
  const int64_t chunk = t * p.num_heads * D + lane * E;
  const uint16_t* q_in = p.queries + chunk;
  // A pass's q chunks as packed pairs: whole-vector loads, unpacked when the pass is computed.
  auto load_pass = [&](int h0, uint32_t(&bits)[H][E / 2]) {
#pragma unroll
    for (int k = 0; k < H; ++k) {
      if (active && h0 + k < h_end) {
        load_bits<E, Fast, CacheHint::kStreaming>(q_in + (h0 + k) * D, bits[k]);
      } else {
#pragma unroll
        for (int i = 0; i < E / 2; ++i) bits[k][i] = 0u;
      }
    }
  };
  uint32_t bits[H][E / 2];
  load_pass(0, bits);
  int64_t pos[3] = {0, 0, 0};
  if (active) row_positions(p, t, pos);
  float c[E];
  float s[E];
  load_cos_sin<D, Fast>(p, pos, lane, axes, c, s);
  const int head_bytes = p.fp8 ? D : 2 * D;
  uint8_t* q_out = static_cast<uint8_t*>(p.q_out) + chunk * (p.fp8 ? 1 : 2);
  for (int h0 = 0; h0 < h_end; h0 += H) {
    float x[H][E];
#pragma unroll
    for (int k = 0; k < H; ++k) unpack<E>(bits[k], x[k]);
    load_pass(h0 + H, bits);
    float ss[H];
#pragma unroll
    for (int k = 0; k < H; ++k) ss[k] = lane_sum_of_squares<E>(x[k]);
    Policy::template sum_across_team<D, H>(ss);
    float rrms[H];
    team_rrms<D, H>(ss, p.eps, lane, rrms);
#pragma unroll
    for (int k = 0; k < H; ++k) {
      uint32_t y[E / 2];
      normalize<E>(x[k], gain, rrms[k], y);
      uint32_t partner[E / 2];
      rope_partners<D, Fast>(p, y, scratch, lane, partner);
      rotate<D, Fast>(p, lane, c, s, partner, y);
      if (active && h0 + k < h_end)
        store_chunk<E, Policy, Fast, CacheHint::kStreaming>(q_out + (h0 + k) * head_bytes, 0, y, p.fp8);
    }
  }
}

template <typename Policy>
__device__ __forceinline__ int32_t ring_block_of(const StepParams& p, int j) {
  if (p.ring_block_table_cols == 0) return -1;
  return Policy::checked_ring_block(p, p.ring_block_table[j * p.ring_block_table_row_stride]);
}

// Positions are below 2^31 (seq_lens are int32): the 32-bit divider of the ring's rows serves.
template <typename Policy>
__device__ __forceinline__ uint16_t* ring_row(const StepParams& p, int32_t block, int64_t position) {
  return p.ring + block * p.ring_block_stride +
         Policy::ring_index(p, static_cast<uint32_t>(position)) * p.ring_row_stride;
}

// Where a request's chunk lies: token rows [first_row, end_row), positions from `start`.
struct Chunk {
  int32_t first_row = 0;
  int32_t end_row = 0;
  int64_t start = 0;
  int32_t ring_block = -1;
};

// Phase B for item (j, 0): the chunk's last min(q, R) rows, key bits and (t, h, w), into j's ring
// block, in batches of kRingBatch rows whose loads are issued before their stores; lane b of the
// team moves the position tail of the batch's row b.
constexpr int kRingBatch = 4;

template <int E>
struct RingBatch {
  int32_t t0 = 0;  // the batch's first token row
  uint32_t bits[kRingBatch][E / 2];
  int64_t pos[3];
  bool tail = false;  // this lane moves row t0 + lane's position tail
};

// The first of the chunk's last min(q, R) rows.
__device__ __forceinline__ int32_t first_committed_row(const StepParams& p, const Chunk& chunk) {
  return chunk.end_row - chunk.first_row > p.ring_capacity ? chunk.end_row - p.ring_capacity : chunk.first_row;
}

// The loads of the batch from row t0: only the step's inputs (keys, positions), never the ring, so
// they may be issued before phase A's ring reads.
template <int D, bool Fast>
__device__ __forceinline__ void load_ring_batch(const StepParams& p, const Chunk& chunk, int32_t t0, int lane,
                                                RingBatch<TeamShape<D>::kElems>& batch) {
  constexpr int E = TeamShape<D>::kElems;
  static_assert(kRingBatch <= TeamShape<D>::kLanes, "a lane per row's tail");
  batch.t0 = t0;
#pragma unroll
  for (int b = 0; b < kRingBatch; ++b)
    if (t0 + b < chunk.end_row) load_bits<E, Fast>(p.keys + static_cast<int64_t>(t0 + b) * D + lane * E, batch.bits[b]);
  batch.tail = p.ring_positions && lane < kRingBatch && t0 + lane < chunk.end_row;
  if (batch.tail) row_positions(p, t0 + lane, batch.pos);
}

template <int D, typename Policy, bool Fast>
__device__ __forceinline__ void store_ring_batch(const StepParams& p, const Chunk& chunk, int lane,
                                                 const RingBatch<TeamShape<D>::kElems>& batch) {
  constexpr int E = TeamShape<D>::kElems;
#pragma unroll
  for (int b = 0; b < kRingBatch; ++b) {
    if (batch.t0 + b >= chunk.end_row) break;
    uint16_t* row = ring_row<Policy>(p, chunk.ring_block, chunk.start + (batch.t0 + b - chunk.first_row));
    store_bits_to_ring<E, Fast>(row + lane * E, batch.bits[b]);
  }
  if (batch.tail)
    store_tail<Fast>(
        ring_row<Policy>(p, chunk.ring_block, chunk.start + (batch.t0 + lane - chunk.first_row)) + p.ring_tail_offset,
        batch.pos);
}

// The batches from row `from` on (a batch of no rows stores nothing).
template <int D, typename Policy, bool Fast>
__device__ void commit_ring_from(const StepParams& p, const Chunk& chunk, int32_t from, int lane) {
  for (int32_t t0 = from; t0 < chunk.end_row; t0 += kRingBatch) {
    RingBatch<TeamShape<D>::kElems> batch;
    load_ring_batch<D, Fast>(p, chunk, t0, lane, batch);
    store_ring_batch<D, Policy, Fast>(p, chunk, lane, batch);
  }
}

// Group member m's row: this step's key when m >= start, else the ring row as it was before the
// step; null without a ring block (the member reads zeros).
template <int D, typename Policy>
__device__ __forceinline__ const uint16_t* member_row(const StepParams& p, const Chunk& chunk, int64_t m) {
  if (m >= chunk.start) return p.keys + (chunk.first_row + (m - chunk.start)) * D;
  if (chunk.ring_block >= 0) return ring_row<Policy>(p, chunk.ring_block, m);
  return nullptr;
}

template <int D, typename Policy, bool Fast>
__device__ __forceinline__ void load_member(const StepParams& p, const Chunk& chunk, int64_t m, int lane,
                                            uint32_t (&bits)[TeamShape<D>::kElems / 2]) {
  constexpr int E = TeamShape<D>::kElems;
  const uint16_t* row = member_row<D, Policy>(p, chunk, m);
  if (row == nullptr) {
#pragma unroll
    for (int i = 0; i < E / 2; ++i) bits[i] = 0u;
  } else if (m >= chunk.start) {  // a key of this step: streamed
    load_bits<E, Fast, CacheHint::kStreaming>(row + lane * E, bits);
  } else {
    load_ring_bits<E, Fast>(row + lane * E, bits);
  }
}

// The group mean of SPEC 6.1: members summed in order, loaded in batches of kBatch.
template <int D, typename Policy, bool Fast, int kBatch>
__device__ __forceinline__ void pool_group(const StepParams& p, const Chunk& chunk, int64_t g0, int lane,
                                           float (&x)[TeamShape<D>::kElems]) {
  constexpr int E = TeamShape<D>::kElems;
  const auto c_ratio = static_cast<uint32_t>(p.compress_ratio);
  float sum[E];
  for (uint32_t i0 = 0; i0 < c_ratio; i0 += kBatch) {
    uint32_t bits[kBatch][E / 2];
#pragma unroll
    for (int b = 0; b < kBatch; ++b)
      if (i0 + b < c_ratio) load_member<D, Policy, Fast>(p, chunk, g0 + i0 + b, lane, bits[b]);
#pragma unroll
    for (int b = 0; b < kBatch; ++b) {
      if (i0 + b >= c_ratio) break;
      float v[E];
      unpack<E>(bits[b], v);
#pragma unroll
      for (int e = 0; e < E; ++e) sum[e] = i0 + b == 0 ? v[e] : __fadd_rn(sum[e], v[e]);
    }
  }
  if (p.inv_compress_ratio > 0.0f) {  // C a power of two: the same rounding of the same quotient
#pragma unroll
    for (int e = 0; e < E; ++e) x[e] = bf16_to_float(float_to_bf16(__fmul_rn(sum[e], p.inv_compress_ratio)));
  } else {
#pragma unroll
    for (int e = 0; e < E; ++e) x[e] = bf16_to_float(float_to_bf16(__fdiv_rn(sum[e], static_cast<float>(c_ratio))));
  }
}

// One k-work item: its closing group (phase A), then for item (j, 0) the ring commit (phase B).
// EarlyRingLoads: phase B's first batch is loaded with phase A's members, so that its loads overlap
// phase A's chain instead of following it; the registers that hold it are the cost.
template <int D, typename Policy, bool Fast, int PoolBatch, bool EarlyRingLoads>
__device__ void item_unit(const StepParams& p, int64_t item, uint32_t axes, uint16_t* scratch, int lane) {
  constexpr int E = TeamShape<D>::kElems;
  const uint32_t c_ratio = static_cast<uint32_t>(p.compress_ratio);
  const uint32_t s_size = static_cast<uint32_t>(p.storage_block_size);
  int j = -1;
  int w = 0;
  if (item < p.num_work_rows) {
    const int2 pair = reinterpret_cast<const int2*>(p.k_work_metadata)[item];
    j = pair.x;
    w = pair.y;
  }
  Chunk chunk;
  uint32_t group = 0;
  bool closes = false;
  if (j >= 0) {
    chunk.first_row = p.query_start_loc[j];
    chunk.end_row = p.query_start_loc[j + 1];
    const auto end = static_cast<uint32_t>(p.seq_lens[j]);
    chunk.ring_block = ring_block_of<Policy>(p, j);
    chunk.start = end - (chunk.end_row - chunk.first_row);
    group = p.compress_divider.quotient(static_cast<uint32_t>(chunk.start)) + static_cast<uint32_t>(w);
    closes = group < p.compress_divider.quotient(end);
  }
  const bool commits = j >= 0 && w == 0 && chunk.ring_block >= 0;
  const int32_t from = first_committed_row(p, chunk);
  if constexpr (!Policy::kCommitsRingAfterReads) {
    if (commits) commit_ring_from<D, Policy, Fast>(p, chunk, from, lane);
    __syncwarp();
  }
  RingBatch<E> first;  // stored only after every lane's ring reads (below)
  constexpr bool kPhaseBLoadedEarly = EarlyRingLoads && Policy::kCommitsRingAfterReads;
  if constexpr (kPhaseBLoadedEarly)
    if (commits) load_ring_batch<D, Fast>(p, chunk, from, lane, first);

  // Phase A. Issued together: the slot's two reads (SPEC 2: the common slot of the group's last
  // row and its block-table entry), the group position, the members.
  const int64_t g0 = static_cast<int64_t>(group) * c_ratio;
  int64_t common_slot = -1;
  int32_t block = -1;
  int64_t pos[3] = {g0, g0, g0};
  float x[E];
#pragma unroll
  for (int e = 0; e < E; ++e) x[e] = 0.0f;
  const uint32_t logical = p.storage_divider.quotient(group);
  if (closes) {
    if (logical < static_cast<uint32_t>(p.block_table_cols)) {
      common_slot = p.common_slot_mapping[chunk.first_row + (g0 + c_ratio - 1 - chunk.start)];
      block = p.block_table[j * p.block_table_row_stride + logical * p.block_table_col_stride];
    }
    if (Policy::reads_group_positions(p)) {
      if (g0 >= chunk.start)
        row_positions(p, chunk.first_row + (g0 - chunk.start), pos);
      else if (chunk.ring_block >= 0)
        load_tail<Fast>(ring_row<Policy>(p, chunk.ring_block, g0) + p.ring_tail_offset, pos);
      else
        pos[0] = pos[1] = pos[2] = 0;  // a missing ring block reads zeros
    }
    pool_group<D, Policy, Fast, PoolBatch>(p, chunk, g0, lane, x);
  }
  // The compressed slot, skipped when negative or past the cache.
  const int64_t slot = common_slot >= 0 && block >= 0 && block < p.compressed_num_blocks
                           ? int64_t{block} * s_size + (group - logical * s_size)
                           : -1;
  bool active = slot >= 0;
  if (active && Policy::reads_group_positions(p)) {  // a position read from the step or the ring tail
    bool inside = true;
#pragma unroll
    for (int a = 0; a < 3; ++a) inside = inside && pos[a] >= 0 && pos[a] < p.max_position;
    if (!inside) {
      if (lane == 0) atomicOr(p.status, 1);
      active = false;
    }
  }
  if (!active) pos[0] = pos[1] = pos[2] = 0;
  float gain[E];  // loaded after the pooling, whose loads need the registers
  load_gain<D, Fast>(p.w_k, lane, gain);
  float c[E];
  float s[E];
  load_cos_sin<D, Fast>(p, pos, lane, axes, c, s);
  float ss[1] = {lane_sum_of_squares<E>(x)};
  Policy::template sum_across_team<D, 1>(ss);
  uint32_t y[E / 2];
  normalize<E>(x, gain, rrms_of<D>(ss[0], p.eps), y);
  uint32_t partner[E / 2];
  rope_partners<D, Fast>(p, y, scratch, lane, partner);
  rotate<D, Fast>(p, lane, c, s, partner, y);
  if (active) {
    const int64_t row_block = slot / s_size;
    const int64_t row = row_block * p.compressed_block_stride + (slot - row_block * s_size) * p.compressed_row_stride;
    store_chunk<E, Policy, Fast>(static_cast<uint8_t*>(p.compressed) + row * (p.fp8 ? 1 : 2), lane * E, y, p.fp8);
  }
  __syncwarp();  // every lane's ring reads are done before any lane commits

  // Phase B, after every read of phase A.
  if (commits && Policy::kCommitsRingAfterReads) {
    if constexpr (kPhaseBLoadedEarly) {
      store_ring_batch<D, Policy, Fast>(p, chunk, lane, first);
      commit_ring_from<D, Policy, Fast>(p, chunk, from + kRingBatch, lane);
    } else {
      commit_ring_from<D, Policy, Fast>(p, chunk, from, lane);
    }
  }
}

// Past this point a block may read what the previous kernel wrote (programmatic_launch.cuh).
template <bool GridControl, typename Policy>
__device__ __forceinline__ void enter_dependent_part() {
  if constexpr (GridControl) {
    Policy::wait_for_inputs();
    allow_next_grid();
  }
}

// H: heads per pass of the Q path; MinBlocks: resident blocks per SM the register budget must
// allow; PoolBatch: group members loaded at once; GridControl: the PDL wait and trigger (off only
// for version 5 in the benchmark); Threads: threads per block; Halves: the Q path in the halves
// layout (step_q_halves.cuh; Fast and rd == D/2 only); EarlyRingLoads: see item_unit. Policy:
// the operations named in step_update_policy.cuh (StepPolicy, the shipped kernel's, by default).
template <int D, typename Policy = StepPolicy, bool Fast = true, int H = kDefaultHeadsPerPass,
          int MinBlocks = kDefaultMinBlocks, int PoolBatch = kDefaultPoolBatch, bool GridControl = true,
          int Threads = kStepThreads, bool Halves = false, bool EarlyRingLoads = false>
__global__ void __launch_bounds__(Threads, MinBlocks) step_update_row_teams_kernel(const StepParams p) {
  static_assert(Fast || !Halves, "the halves layout needs the fast layout's vectors");
  using Shape = TeamShape<D>;
  constexpr int E = Shape::kElems;
  constexpr int kTeams = Shape::template kTeamsPerBlock<Threads>;
  __shared__ uint16_t scratch[kTeams][D];
  const int team = threadIdx.x / Shape::kLanes;
  const int lane = threadIdx.x % Shape::kLanes;
  const uint32_t axes = p.lane_axes[lane];
  const uint32_t period = p.item_stride.quotient(blockIdx.x);
  const bool starts_period = blockIdx.x == period * p.item_stride.divisor;
  if (starts_period && period < static_cast<uint32_t>(p.item_blocks)) {
    enter_dependent_part<GridControl, Policy>();
    item_unit<D, Policy, Fast, PoolBatch, EarlyRingLoads>(p, static_cast<int64_t>(period) * kTeams + team, axes,
                                                          scratch[team], lane);
  } else {
    const uint32_t items_before = min(period + (starts_period ? 0u : 1u), static_cast<uint32_t>(p.item_blocks));
    const int64_t t = static_cast<int64_t>(blockIdx.x - items_before) * kTeams + team;
    if constexpr (Halves) {
      const HalvesWeight<D> weight = load_halves_weight<D>(p.w_q, lane);  // a constant weight: read before the wait
      enter_dependent_part<GridControl, Policy>();
      q_row_halves<D, Policy, H>(p, t, halves_lane_axes<D>(p, lane), weight, lane);
    } else {
      float gain[E];
      load_gain<D, Fast>(p.w_q, lane, gain);  // a constant weight: read before the wait
      enter_dependent_part<GridControl, Policy>();
      q_row<D, Policy, Fast, H>(p, t, axes, gain, scratch[team], lane);
    }
  }
}

}  // namespace qsa::cuda::detail
