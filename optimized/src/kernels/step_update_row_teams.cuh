#pragma once
// step_update_row_teams_kernel: the fused step update of SPEC 5. A *team* of lanes owns one
// D-wide row at a time, each lane a contiguous chunk of 8 (16 for D = 512) elements; the sum of
// squares is the lane's pairwise tree followed by xor shuffles over the team (SPEC 6.2's tree
// exactly). Blocks below `item_blocks` run k-work items (one closing group each; item (j, 0) also
// commits request j's ring suffix after its own ring reads); the others run the Q path, one token
// row (every head) per team.
//
// Fast: the launcher found every row 16-byte aligned (ring rows 8-byte aligned), the RoPE table's
// rows 16-byte aligned and rd/2 a power-of-two multiple of the lane chunk: loads and stores are
// unconditional vector accesses and RoPE partners are fetched by shuffles. Otherwise the generic
// instantiation moves elements one by one and exchanges partners through shared memory.

#include <cstdint>

#include "kernels/step_update_arithmetic.cuh"
#include "kernels/step_update_params.hpp"

namespace qsa::cuda::detail {

template <int D>
struct TeamShape {
  static constexpr int kLanes = D / 8 < 32 ? D / 8 : 32;  // lanes per row: 4, 8, 16, 32, 32
  static constexpr int kElems = D / kLanes;               // elements per lane: 8, 8, 8, 8, 16
  static constexpr int kTeamsPerBlock = kStepThreads / kLanes;
};

// ---- loads and stores of one lane's chunk of E elements ------------------------------------------

template <int E>
__device__ __forceinline__ void unpack8(const uint4& q, float* v) {
  const uint32_t w[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    v[2 * i] = __uint_as_float(w[i] << 16);
    v[2 * i + 1] = __uint_as_float(w[i] & 0xFFFF0000u);
  }
}

// 16-byte aligned rows (q, k, the RoPE table) in Fast mode.
template <int E, bool Fast>
__device__ __forceinline__ void load_bf16(const uint16_t* p, float (&v)[E]) {
  if constexpr (Fast) {
#pragma unroll
    for (int c = 0; c < E / 8; ++c) unpack8<E>(*reinterpret_cast<const uint4*>(p + 8 * c), v + 8 * c);
  } else {
#pragma unroll
    for (int i = 0; i < E; ++i) v[i] = bf16_to_float(p[i]);
  }
}

// Ring rows (P + 12 elements with positions: 8-byte aligned) in Fast mode.
template <int E, bool Fast>
__device__ __forceinline__ void load_bf16_ring(const uint16_t* p, float (&v)[E]) {
  if constexpr (Fast) {
#pragma unroll
    for (int c = 0; c < E / 4; ++c) {
      const uint2 q = *reinterpret_cast<const uint2*>(p + 4 * c);
      v[4 * c] = __uint_as_float(q.x << 16);
      v[4 * c + 1] = __uint_as_float(q.x & 0xFFFF0000u);
      v[4 * c + 2] = __uint_as_float(q.y << 16);
      v[4 * c + 3] = __uint_as_float(q.y & 0xFFFF0000u);
    }
  } else {
#pragma unroll
    for (int i = 0; i < E; ++i) v[i] = bf16_to_float(p[i]);
  }
}

// Copies a lane's chunk of key bits into a ring row (8-byte stores in Fast mode).
template <int E, bool Fast>
__device__ __forceinline__ void copy_to_ring(const uint16_t* key, uint16_t* row) {
  if constexpr (Fast) {
#pragma unroll
    for (int c = 0; c < E / 8; ++c) {
      const uint4 q = *reinterpret_cast<const uint4*>(key + 8 * c);
      *reinterpret_cast<uint2*>(row + 8 * c) = make_uint2(q.x, q.y);
      *reinterpret_cast<uint2*>(row + 8 * c + 4) = make_uint2(q.z, q.w);
    }
  } else {
#pragma unroll
    for (int i = 0; i < E; ++i) row[i] = key[i];
  }
}

// Stores a lane's chunk, held as E/2 packed bf16 pairs, in the store dtype at `row` + offset
// elements: 16-byte stores of bf16 or 8-byte stores of e4m3 in Fast mode.
template <int E, int Bug, bool Fast>
__device__ __forceinline__ void store_chunk(void* row, int offset, const uint32_t (&y)[E / 2], bool fp8) {
  if (!fp8) {
    uint16_t* p = static_cast<uint16_t*>(row) + offset;
    if constexpr (Fast) {
#pragma unroll
      for (int c = 0; c < E / 8; ++c) *reinterpret_cast<uint4*>(p + 8 * c) = make_uint4(y[4 * c], y[4 * c + 1], y[4 * c + 2], y[4 * c + 3]);
    } else {
#pragma unroll
      for (int i = 0; i < E / 2; ++i) {
        p[2 * i] = static_cast<uint16_t>(y[i] & 0xFFFFu);
        p[2 * i + 1] = static_cast<uint16_t>(y[i] >> 16);
      }
    }
    return;
  }
  uint32_t b[E / 4];
#pragma unroll
  for (int i = 0; i < E / 4; ++i) {
    const uint32_t lo = y[2 * i];
    const uint32_t hi = y[2 * i + 1];
    b[i] = bf16_to_e4m3<Bug != kFp8NoSaturation>(static_cast<uint16_t>(lo & 0xFFFFu)) |
           static_cast<uint32_t>(bf16_to_e4m3<Bug != kFp8NoSaturation>(static_cast<uint16_t>(lo >> 16))) << 8 |
           static_cast<uint32_t>(bf16_to_e4m3<Bug != kFp8NoSaturation>(static_cast<uint16_t>(hi & 0xFFFFu))) << 16 |
           static_cast<uint32_t>(bf16_to_e4m3<Bug != kFp8NoSaturation>(static_cast<uint16_t>(hi >> 16))) << 24;
  }
  uint8_t* p = static_cast<uint8_t*>(row) + offset;
  if constexpr (Fast) {
#pragma unroll
    for (int c = 0; c < E / 8; ++c) *reinterpret_cast<uint2*>(p + 8 * c) = make_uint2(b[2 * c], b[2 * c + 1]);
  } else {
#pragma unroll
    for (int i = 0; i < E; ++i) p[i] = static_cast<uint8_t>(b[i / 4] >> (8 * (i % 4)));
  }
}

// Three int64 of a ring row's position tail: 8-byte aligned in Fast mode (P = D is a multiple of
// 4 and the rows are 8-byte aligned), only 2-byte aligned in general.
template <bool Fast>
__device__ __forceinline__ void load_tail(const uint16_t* p, int64_t (&pos)[3]) {
#pragma unroll
  for (int a = 0; a < 3; ++a) {
    if constexpr (Fast) {
      pos[a] = reinterpret_cast<const int64_t*>(p)[a];
    } else {
      uint64_t v = 0;
#pragma unroll
      for (int i = 3; i >= 0; --i) v = v << 16 | p[4 * a + i];
      pos[a] = static_cast<int64_t>(v);
    }
  }
}

template <bool Fast>
__device__ __forceinline__ void store_tail(uint16_t* p, const int64_t (&pos)[3]) {
#pragma unroll
  for (int a = 0; a < 3; ++a) {
    if constexpr (Fast) {
      reinterpret_cast<int64_t*>(p)[a] = pos[a];
    } else {
#pragma unroll
      for (int i = 0; i < 4; ++i) p[4 * a + i] = static_cast<uint16_t>(static_cast<uint64_t>(pos[a]) >> (16 * i));
    }
  }
}

// ---- the row transform: norm, RoPE ---------------------------------------------------------------

// SPEC 6.2's pairwise tree over this lane's rounded squares (the lane's subtree).
template <int E>
__device__ __forceinline__ float lane_sum_of_squares(const float (&x)[E]) {
  float level[E];
#pragma unroll
  for (int i = 0; i < E; ++i) level[i] = __fmul_rn(x[i], x[i]);
#pragma unroll
  for (int width = E; width > 1; width /= 2)
#pragma unroll
    for (int i = 0; i < width / 2; ++i) level[i] = __fadd_rn(level[2 * i], level[2 * i + 1]);
  return level[0];
}

// The rest of the tree across the team, for H rows at once (their shuffles interleave).
template <int D, int Bug, int H>
__device__ __forceinline__ void team_sum(float (&ss)[H]) {
  constexpr int kLanes = TeamShape<D>::kLanes;
  if constexpr (Bug == kReversedTree) {
#pragma unroll
    for (int offset = kLanes / 2; offset >= 1; offset /= 2)
#pragma unroll
      for (int k = 0; k < H; ++k) ss[k] = __fadd_rn(ss[k], __shfl_xor_sync(0xFFFFFFFFu, ss[k], offset));
  } else {
#pragma unroll
    for (int offset = 1; offset < kLanes; offset *= 2)
#pragma unroll
      for (int k = 0; k < H; ++k) ss[k] = __fadd_rn(ss[k], __shfl_xor_sync(0xFFFFFFFFu, ss[k], offset));
  }
}

// y = bf16((x · rrms) · gain), packed in pairs; gain = 1 + f(w), rrms = 1 / sqrt(ss / D + eps).
template <int D, int E>
__device__ __forceinline__ void normalize(const float (&x)[E], const float (&gain)[E], float ss, float eps, uint32_t (&y)[E / 2]) {
  // ss / D == ss · (1 / D) exactly: D is a power of two, both are the one rounding of ss · 2^-k.
  const float rrms = __fdiv_rn(1.0f, __fsqrt_rn(__fadd_rn(__fmul_rn(ss, 1.0f / static_cast<float>(D)), eps)));
#pragma unroll
  for (int i = 0; i < E / 2; ++i)
    y[i] = float2_to_bf16x2(__fmul_rn(__fmul_rn(x[2 * i], rrms), gain[2 * i]), __fmul_rn(__fmul_rn(x[2 * i + 1], rrms), gain[2 * i + 1]));
}

// MRoPE axis of rotary pair i (SPEC 6.3).
template <int Bug>
__device__ __forceinline__ int rope_axis(int pair, const StepParams& p) {
  if (!p.mrope) return 0;
  constexpr int h = Bug == kWrongMropeAxis ? 2 : 1;
  constexpr int w = Bug == kWrongMropeAxis ? 1 : 2;
  if (pair % 3 == 1 && pair < 3 * p.mrope_sections[1]) return h;
  if (pair % 3 == 2 && pair < 3 * p.mrope_sections[2]) return w;
  return 0;
}

// Per lane, fixed for the kernel: the MRoPE axis of each element's pair, two bits each.
template <int D, int Bug>
__device__ __forceinline__ uint32_t lane_axes(const StepParams& p, int lane) {
  constexpr int E = TeamShape<D>::kElems;
  const int hp = p.rotary_dim / 2;
  uint32_t bits = 0;
#pragma unroll
  for (int i = 0; i < E; ++i) {
    const int d = lane * E + i;
    if (d < p.rotary_dim) bits |= static_cast<uint32_t>(rope_axis<Bug>(d < hp ? d : d - hp, p)) << (2 * i);
  }
  return bits;
}

// The (cos, sin) of this lane's elements at the row positions `pos` (elements [rd, D) get 1, 0).
template <int D, bool Fast>
__device__ __forceinline__ void load_cos_sin(const StepParams& p, const int64_t (&pos)[3], int lane, uint32_t axes, float (&c)[TeamShape<D>::kElems],
                                             float (&s)[TeamShape<D>::kElems]) {
  constexpr int E = TeamShape<D>::kElems;
  const int hp = p.rotary_dim / 2;
  const int first = lane * E;
#pragma unroll
  for (int i = 0; i < E; ++i) {
    c[i] = 1.0f;
    s[i] = 0.0f;
  }
  if (first >= p.rotary_dim) return;  // a pass-through lane
  if constexpr (Fast) {  // the lane's E pairs are contiguous in each table row
    const int base = first < hp ? first : first - hp;
    float cv[3][E];
    float sv[3][E];
    const int used = p.mrope ? 3 : 1;
#pragma unroll
    for (int axis = 0; axis < 3; ++axis) {
      if (axis >= used) break;
      const uint16_t* row = p.cos_sin + pos[axis] * p.rotary_dim;
      load_bf16<E, true>(row + base, cv[axis]);
      load_bf16<E, true>(row + hp + base, sv[axis]);
    }
#pragma unroll
    for (int i = 0; i < E; ++i) {
      const uint32_t axis = (axes >> (2 * i)) & 3u;
      c[i] = axis == 0 ? cv[0][i] : axis == 1 ? cv[1][i] : cv[2][i];
      s[i] = axis == 0 ? sv[0][i] : axis == 1 ? sv[1][i] : sv[2][i];
    }
  } else {
#pragma unroll
    for (int i = 0; i < E; ++i) {
      const int d = first + i;
      if (d >= p.rotary_dim) continue;
      const uint32_t axis = (axes >> (2 * i)) & 3u;
      const int pair = d < hp ? d : d - hp;
      const int64_t row = axis == 0 ? pos[0] : axis == 1 ? pos[1] : pos[2];
      c[i] = bf16_to_float(p.cos_sin[row * p.rotary_dim + pair]);
      s[i] = bf16_to_float(p.cos_sin[row * p.rotary_dim + hp + pair]);
    }
  }
}

// The partners (d +- rd/2) of this lane's normed values: in Fast mode lane ^ (rd/2E) holds them
// at the same offsets, one shuffle per pair of values; otherwise through `scratch` (D values in
// shared memory). Every lane of the warp calls it.
template <int D, bool Fast>
__device__ __forceinline__ void rope_partners(const StepParams& p, const uint32_t (&y)[TeamShape<D>::kElems / 2], uint16_t* scratch, int lane,
                                              uint32_t (&partner)[TeamShape<D>::kElems / 2]) {
  constexpr int E = TeamShape<D>::kElems;
  const int hp = p.rotary_dim / 2;
  if constexpr (Fast) {
#pragma unroll
    for (int i = 0; i < E / 2; ++i) partner[i] = __shfl_xor_sync(0xFFFFFFFFu, y[i], hp / E);
  } else {
#pragma unroll
    for (int i = 0; i < E / 2; ++i) {
      scratch[lane * E + 2 * i] = static_cast<uint16_t>(y[i] & 0xFFFFu);
      scratch[lane * E + 2 * i + 1] = static_cast<uint16_t>(y[i] >> 16);
    }
    __syncwarp();
#pragma unroll
    for (int i = 0; i < E / 2; ++i) {
      uint32_t pairs = 0;
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int d = lane * E + 2 * i + half;
        const uint32_t v = d < p.rotary_dim ? scratch[d < hp ? d + hp : d - hp] : 0u;
        pairs |= v << (16 * half);
      }
      partner[i] = pairs;
    }
    __syncwarp();  // the scratch row is reused by the next transform
  }
}

// NeoX RoPE (SPEC 6.3) of this lane's packed values, in place: a·c − b·s below rd/2, b·c + a·s
// from rd/2 to rd, elements from rd on pass through.
template <int D>
__device__ __forceinline__ void rotate(const StepParams& p, int lane, const float (&c)[TeamShape<D>::kElems], const float (&s)[TeamShape<D>::kElems],
                                       const uint32_t (&partner)[TeamShape<D>::kElems / 2], uint32_t (&y)[TeamShape<D>::kElems / 2]) {
  constexpr int E = TeamShape<D>::kElems;
  const int hp = p.rotary_dim / 2;
  const int first = lane * E;
  if (first >= p.rotary_dim) return;
  float r[E];
#pragma unroll
  for (int i = 0; i < E; ++i) {
    const int d = first + i;
    const float self = __uint_as_float(i % 2 == 0 ? y[i / 2] << 16 : y[i / 2] & 0xFFFF0000u);
    const float other = __uint_as_float(i % 2 == 0 ? partner[i / 2] << 16 : partner[i / 2] & 0xFFFF0000u);
    const float low = __fsub_rn(__fmul_rn(self, c[i]), __fmul_rn(other, s[i]));   // a·c − b·s, a = y_d
    const float high = __fadd_rn(__fmul_rn(self, c[i]), __fmul_rn(other, s[i]));  // b·c + a·s, b = y_d
    r[i] = d >= p.rotary_dim ? self : d < hp ? low : high;
  }
#pragma unroll
  for (int i = 0; i < E / 2; ++i) y[i] = float2_to_bf16x2(r[2 * i], r[2 * i + 1]);  // a passed-through value converts to itself
}

// ---- work units ------------------------------------------------------------------------------------

__device__ __forceinline__ void row_positions(const StepParams& p, int t, int64_t (&pos)[3]) {
  if (p.position_axes == 3) {
    pos[0] = p.positions[t];
    pos[1] = p.positions[p.num_tokens + t];
    pos[2] = p.positions[2 * p.num_tokens + t];
  } else {
    pos[0] = pos[1] = pos[2] = p.positions[t];
  }
}

template <int D>
__device__ __forceinline__ void load_gain(const uint16_t* weight, int lane, float (&gain)[TeamShape<D>::kElems]) {
  constexpr int E = TeamShape<D>::kElems;
#pragma unroll
  for (int i = 0; i < E; ++i) gain[i] = __fadd_rn(1.0f, bf16_to_float(weight[lane * E + i]));
}

// One token row of the Q path, every head, in passes of H heads whose loads, shuffles and stores
// interleave (straight-line code: a missing head is computed on zeros and not stored).
template <int D, int Bug, bool Fast, int H>
__device__ void q_row(const StepParams& p, int64_t t, uint32_t axes, const float (&gain)[TeamShape<D>::kElems], uint16_t* scratch, int lane) {
  constexpr int E = TeamShape<D>::kElems;
  const int64_t rows = Bug == kQOutSkipsPadding ? p.query_start_loc[p.num_requests] : p.num_tokens;
  const bool active = t < rows;
  int64_t pos[3] = {0, 0, 0};
  if (active) row_positions(p, static_cast<int>(t), pos);
  float c[E];
  float s[E];
  load_cos_sin<D, Fast>(p, pos, lane, axes, c, s);
  const int bytes = p.fp8 ? 1 : 2;
  for (int h0 = 0; h0 < p.num_heads; h0 += H) {
    float x[H][E];
#pragma unroll
    for (int k = 0; k < H; ++k) {
      if (active && h0 + k < p.num_heads) {
        load_bf16<E, Fast>(p.queries + (t * p.num_heads + h0 + k) * D + lane * E, x[k]);
      } else {
#pragma unroll
        for (int i = 0; i < E; ++i) x[k][i] = 0.0f;
      }
    }
    float ss[H];
#pragma unroll
    for (int k = 0; k < H; ++k) ss[k] = lane_sum_of_squares<E>(x[k]);
    team_sum<D, Bug, H>(ss);
    uint32_t y[H][E / 2];
#pragma unroll
    for (int k = 0; k < H; ++k) normalize<D, E>(x[k], gain, ss[k], p.eps, y[k]);
#pragma unroll
    for (int k = 0; k < H; ++k) {
      uint32_t partner[E / 2];
      rope_partners<D, Fast>(p, y[k], scratch, lane, partner);
      rotate<D>(p, lane, c, s, partner, y[k]);
      if (active && h0 + k < p.num_heads)
        store_chunk<E, Bug, Fast>(static_cast<uint8_t*>(p.q_out) + (t * p.num_heads + h0 + k) * D * bytes, lane * E, y[k], p.fp8);
    }
  }
}

template <int Bug>
__device__ __forceinline__ int32_t ring_block_of(const StepParams& p, int j) {
  if (p.ring_block_table_cols == 0) return -1;
  const int32_t b = p.ring_block_table[j * p.ring_block_table_row_stride];
  if constexpr (Bug == kRingBlockUnchecked) return b;
  return b >= 0 && b < p.ring_num_blocks ? b : -1;  // missing or past the cache: no ring row
}

// Positions are below 2^31 (seq_lens are int32), so 32-bit unsigned division serves.
template <int Bug>
__device__ __forceinline__ uint16_t* ring_row(const StepParams& p, int32_t block, int64_t position) {
  const uint32_t rows = Bug == kRingOneRowShort && p.ring_capacity > 1 ? p.ring_capacity - 1 : p.ring_capacity;
  return p.ring + block * p.ring_block_stride + (static_cast<uint32_t>(position) % rows) * p.ring_row_stride;
}

// Phase B for item (j, 0): the chunk's last min(q, R) rows, key bits and (t, h, w), into j's ring
// block; rows go in batches of four whose loads are issued before their stores.
template <int D, int Bug, bool Fast>
__device__ void commit_ring(const StepParams& p, int j, int32_t first_row, int64_t start, int32_t ring_block, int lane) {
  constexpr int E = TeamShape<D>::kElems;
  const int32_t end_row = p.query_start_loc[j + 1];
  const int32_t from = end_row - first_row > p.ring_capacity ? end_row - p.ring_capacity : first_row;
  for (int32_t t = from; t < end_row; ++t) {
    uint16_t* row = ring_row<Bug>(p, ring_block, start + (t - first_row));
    copy_to_ring<E, Fast>(p.keys + static_cast<int64_t>(t) * D + lane * E, row + lane * E);
    if (p.ring_positions && lane == 0) {
      int64_t tail[3];
      row_positions(p, t, tail);
      store_tail<Fast>(row + p.ring_tail_offset, tail);
    }
  }
}

// One k-work item: its closing group (phase A), then for item (j, 0) the ring commit (phase B).
template <int D, int Bug, bool Fast>
__device__ void item_unit(const StepParams& p, int64_t item, uint32_t axes, const float (&gain)[TeamShape<D>::kElems], uint16_t* scratch, int lane) {
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
  uint32_t group = 0;
  int64_t slot = -1;
  int64_t start = 0;
  int32_t first_row = 0;
  int32_t ring_block = -1;
  if (j >= 0) {
    first_row = p.query_start_loc[j];
    const auto end = static_cast<uint32_t>(p.seq_lens[j]);
    start = end - (p.query_start_loc[j + 1] - first_row);
    ring_block = ring_block_of<Bug>(p, j);
    group = static_cast<uint32_t>(start) / c_ratio + static_cast<uint32_t>(w);
    if (group < end / c_ratio) {
      // The compressed slot of the group's last row (SPEC 2), skipped when negative or past the cache.
      const int64_t closing_row = first_row + (static_cast<int64_t>(group) * c_ratio + c_ratio - 1 - start);
      const uint32_t logical = group / s_size;
      if (logical < static_cast<uint32_t>(p.block_table_cols) && p.common_slot_mapping[closing_row] >= 0) {
        const int32_t b = p.block_table[j * p.block_table_row_stride + logical * p.block_table_col_stride];
        if (b >= 0 && b < p.compressed_num_blocks) slot = int64_t{b} * s_size + (group - logical * s_size);
      }
    }
  }
  const bool commits = j >= 0 && w == 0 && ring_block >= 0;
  if constexpr (Bug == kCommitBeforeRead) {
    if (commits) commit_ring<D, Bug, Fast>(p, j, first_row, start, ring_block, lane);
    __syncwarp();
  }

  // Phase A: pool the members (this step's keys, or the ring as it was before the step), then
  // norm and rotate at the group position.
  bool active = slot >= 0;
  float x[E];
  int64_t pos[3] = {0, 0, 0};
#pragma unroll
  for (int e = 0; e < E; ++e) x[e] = 0.0f;
  if (active) {
    const int64_t g0 = static_cast<int64_t>(group) * c_ratio;
    float sum[E];
    for (uint32_t i = 0; i < c_ratio; ++i) {
      const int64_t m = g0 + i;
      float v[E];
      if (m >= start) {
        load_bf16<E, Fast>(p.keys + (first_row + (m - start)) * D + lane * E, v);
      } else if (ring_block >= 0) {
        load_bf16_ring<E, Fast>(ring_row<Bug>(p, ring_block, m) + lane * E, v);
      } else {
#pragma unroll
        for (int e = 0; e < E; ++e) v[e] = 0.0f;  // a missing ring block reads zeros
      }
#pragma unroll
      for (int e = 0; e < E; ++e) sum[e] = i == 0 ? v[e] : __fadd_rn(sum[e], v[e]);
    }
#pragma unroll
    for (int e = 0; e < E; ++e) x[e] = bf16_to_float(float_to_bf16(__fdiv_rn(sum[e], static_cast<float>(c_ratio))));
    if (p.ring_positions && Bug != kGroupPositionIgnoresTail) {
      if (g0 >= start) row_positions(p, static_cast<int>(first_row + (g0 - start)), pos);
      else if (ring_block >= 0) load_tail<Fast>(ring_row<Bug>(p, ring_block, g0) + p.ring_tail_offset, pos);
      bool inside = true;
#pragma unroll
      for (int a = 0; a < 3; ++a) inside = inside && pos[a] >= 0 && pos[a] < p.max_position;
      if (!inside) {
        if (lane == 0) atomicOr(p.status, 1);
        active = false;
        pos[0] = pos[1] = pos[2] = 0;
      }
    } else {
      pos[0] = pos[1] = pos[2] = g0;
    }
  }
  float c[E];
  float s[E];
  load_cos_sin<D, Fast>(p, pos, lane, axes, c, s);
  float ss[1] = {lane_sum_of_squares<E>(x)};
  team_sum<D, Bug, 1>(ss);
  uint32_t y[E / 2];
  normalize<D, E>(x, gain, ss[0], p.eps, y);
  uint32_t partner[E / 2];
  rope_partners<D, Fast>(p, y, scratch, lane, partner);
  rotate<D>(p, lane, c, s, partner, y);
  if (active) {
    const int64_t block = slot / s_size;
    void* out = static_cast<uint8_t*>(p.compressed) + (block * p.compressed_block_stride + (slot - block * s_size) * p.compressed_row_stride) * (p.fp8 ? 1 : 2);
    store_chunk<E, Bug, Fast>(out, lane * E, y, p.fp8);
  }
  __syncwarp();  // every lane's ring reads are done before any lane commits

  // Phase B, after every read of phase A.
  if (commits && Bug != kCommitBeforeRead) commit_ring<D, Bug, Fast>(p, j, first_row, start, ring_block, lane);
}

// H: heads per pass of the Q path; MinBlocks: resident blocks per SM the register budget must allow.
template <int D, int Bug, bool Fast, int H = kDefaultHeadsPerPass, int MinBlocks = kDefaultMinBlocks>
__global__ void __launch_bounds__(kStepThreads, MinBlocks) step_update_row_teams_kernel(const StepParams p) {
  using Shape = TeamShape<D>;
  constexpr int E = Shape::kElems;
  __shared__ uint16_t scratch[Shape::kTeamsPerBlock][D];
  const int team = threadIdx.x / Shape::kLanes;
  const int lane = threadIdx.x % Shape::kLanes;
  const uint32_t axes = lane_axes<D, Bug>(p, lane);
  float gain[E];
  if (blockIdx.x < p.item_blocks) {
    load_gain<D>(p.w_k, lane, gain);
    item_unit<D, Bug, Fast>(p, static_cast<int64_t>(blockIdx.x) * Shape::kTeamsPerBlock + team, axes, gain, scratch[team], lane);
  } else {
    load_gain<D>(p.w_q, lane, gain);
    q_row<D, Bug, Fast, H>(p, static_cast<int64_t>(blockIdx.x - p.item_blocks) * Shape::kTeamsPerBlock + team, axes, gain, scratch[team], lane);
  }
}

}  // namespace qsa::cuda::detail
