#pragma once
// The row transform of SPEC 6 on one lane's chunk: the sum of squares by SPEC 6.2's pairwise tree
// (the lane's subtree, then xor shuffles across the team), Gemma RMSNorm, and NeoX RoPE with the
// MRoPE axis selection of SPEC 6.3. Every float operation is an explicit _rn intrinsic.

#include <cstdint>

#include "kernels/step_lane_io.cuh"

namespace qsa::cuda::detail {

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
template <int D, int H>
__device__ __forceinline__ void team_sum(float (&ss)[H]) {
  constexpr int kLanes = TeamShape<D>::kLanes;
#pragma unroll
  for (int offset = 1; offset < kLanes; offset *= 2)
#pragma unroll
    for (int k = 0; k < H; ++k) ss[k] = __fadd_rn(ss[k], __shfl_xor_sync(0xFFFFFFFFu, ss[k], offset));
}

// rrms = 1 / sqrt(ss / D + eps). ss / D == ss · (1 / D) exactly: D is a power of two, both are
// the one rounding of ss · 2^-k.
template <int D>
__device__ __forceinline__ float rrms_of(float ss, float eps) {
  return __fdiv_rn(1.0f, __fsqrt_rn(__fadd_rn(__fmul_rn(ss, 1.0f / static_cast<float>(D)), eps)));
}

// The rrms of H rows whose team sums every lane of the team holds: lane k of the team computes
// row k's (the division and square root are long sequences) and shares it by a shuffle.
template <int D, int H>
__device__ __forceinline__ void team_rrms(const float (&ss)[H], float eps, int lane, float (&rrms)[H]) {
  constexpr int kLanes = TeamShape<D>::kLanes;
  static_assert(H <= kLanes, "one lane per row");
  if constexpr (H == 1) {
    rrms[0] = rrms_of<D>(ss[0], eps);
  } else {
    static_assert(H == 2 || H == 4, "rows picked by lane bits");
    // Selects by constant indices (an index computed from the lane would put ss in local memory).
    float mine = lane & 1 ? ss[1] : ss[0];
    if constexpr (H == 4) mine = lane & 2 ? (lane & 1 ? ss[3] : ss[2]) : mine;
    const float r = rrms_of<D>(mine, eps);
#pragma unroll
    for (int k = 0; k < H; ++k) rrms[k] = __shfl_sync(0xFFFFFFFFu, r, k, kLanes);
  }
}

// y = bf16((x · rrms) · gain), packed in pairs; gain = 1 + f(w).
template <int E>
__device__ __forceinline__ void normalize(const float (&x)[E], const float (&gain)[E], float rrms,
                                          uint32_t (&y)[E / 2]) {
#pragma unroll
  for (int i = 0; i < E / 2; ++i)
    y[i] = float2_to_bf16x2(__fmul_rn(__fmul_rn(x[2 * i], rrms), gain[2 * i]),
                            __fmul_rn(__fmul_rn(x[2 * i + 1], rrms), gain[2 * i + 1]));
}

template <int D, bool Fast>
__device__ __forceinline__ void load_gain(const uint16_t* weight, int lane, float (&gain)[TeamShape<D>::kElems]) {
  constexpr int E = TeamShape<D>::kElems;
  load_bf16<E, Fast>(weight + lane * E, gain);
#pragma unroll
  for (int i = 0; i < E; ++i) gain[i] = __fadd_rn(1.0f, gain[i]);
}

// The (cos, ±sin) of N consecutive rotary pairs from `pair` at the row positions `pos`, each from
// the table row of its MRoPE axis (`axes`: 2 bits per element). The table's rows hold rd entries,
// the sines rd/2 after the cosines; every pair lies on one side of rd/2, the sine negated on the
// `low` side, where RoPE computes a·c − b·s = a·c + b·(−s) (IEEE subtraction is the addition of
// the negation, and (−s)·b = −(s·b) under round to nearest), so every rotated element is
// self·c + partner·s. Vector loads: the fast layout only.
template <int N>
__device__ __forceinline__ void load_rotary_pairs(const StepParams& p, const int64_t (&pos)[3], int rd, int pair,
                                                  bool low, uint32_t axes, float (&c)[N], float (&s)[N]) {
  uint32_t cv[3][N / 2];  // packed pairs until an element is picked: half the registers of floats
  uint32_t sv[3][N / 2];
  const int used = p.mrope ? 3 : 1;
#pragma unroll
  for (int axis = 0; axis < 3; ++axis) {
    if (axis >= used) break;
    const uint16_t* row = p.cos_sin + pos[axis] * rd;
    load_bits<N, true>(row + pair, cv[axis]);
    load_bits<N, true>(row + rd / 2 + pair, sv[axis]);
  }
#pragma unroll
  for (int i = 0; i < N; ++i) {
    const uint32_t axis = (axes >> (2 * i)) & 3u;
    const uint32_t cp = axis == 0 ? cv[0][i / 2] : axis == 1 ? cv[1][i / 2] : cv[2][i / 2];
    const uint32_t sp = axis == 0 ? sv[0][i / 2] : axis == 1 ? sv[1][i / 2] : sv[2][i / 2];
    c[i] = i % 2 == 0 ? low_bf16(cp) : high_bf16(cp);
    const float sine = i % 2 == 0 ? low_bf16(sp) : high_bf16(sp);
    s[i] = low ? -sine : sine;
  }
}

// The (cos, ±sin) of this lane's elements at the row positions `pos` (`axes`:
// StepParams::lane_axes), the sine negated below rd/2 as in load_rotary_pairs. Elements from rd on
// get (1, 0) and are passed through by rotate().
template <int D, bool Fast>
__device__ __forceinline__ void load_cos_sin(const StepParams& p, const int64_t (&pos)[3], int lane, uint32_t axes,
                                             float (&c)[TeamShape<D>::kElems], float (&s)[TeamShape<D>::kElems]) {
  constexpr int E = TeamShape<D>::kElems;
  const int hp = p.rotary_dim / 2;
  const int first = lane * E;
#pragma unroll
  for (int i = 0; i < E; ++i) {
    c[i] = 1.0f;
    s[i] = 0.0f;
  }
  if (first >= p.rotary_dim) return;  // a pass-through lane
  if constexpr (Fast) {               // the lane's E pairs are contiguous in each table row, all on one side of rd/2
    load_rotary_pairs<E>(p, pos, p.rotary_dim, first < hp ? first : first - hp, first < hp, axes, c, s);
  } else {
#pragma unroll
    for (int i = 0; i < E; ++i) {
      const int d = first + i;
      if (d >= p.rotary_dim) continue;
      const uint32_t axis = (axes >> (2 * i)) & 3u;
      const int pair = d < hp ? d : d - hp;
      const int64_t row = axis == 0 ? pos[0] : axis == 1 ? pos[1] : pos[2];
      c[i] = bf16_to_float(p.cos_sin[row * p.rotary_dim + pair]);
      const float sine = bf16_to_float(p.cos_sin[row * p.rotary_dim + hp + pair]);
      s[i] = d < hp ? -sine : sine;
    }
  }
}

// The partners (d +- rd/2) of this lane's normed values: in Fast mode lane ^ (rd/2E) holds them
// at the same offsets, one shuffle per pair of values; otherwise through `scratch` (D values in
// shared memory). Every lane of the warp calls it.
template <int D, bool Fast>
__device__ __forceinline__ void rope_partners(const StepParams& p, const uint32_t (&y)[TeamShape<D>::kElems / 2],
                                              uint16_t* scratch, int lane,
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

// NeoX RoPE (SPEC 6.3) of N packed values, in place: self·c + partner·(±s) for the first `rotated`
// (a·c − b·s below rd/2, b·c + a·s from rd/2), the others unchanged. Both Q layouts use it.
template <int N>
__device__ __forceinline__ void rotate_packed(const float (&c)[N], const float (&s)[N],
                                              const uint32_t (&partner)[N / 2], int rotated, uint32_t (&y)[N / 2]) {
  float r[N];
#pragma unroll
  for (int i = 0; i < N; ++i) {
    const float self = i % 2 == 0 ? low_bf16(y[i / 2]) : high_bf16(y[i / 2]);
    const float other = i % 2 == 0 ? low_bf16(partner[i / 2]) : high_bf16(partner[i / 2]);
    r[i] = i < rotated ? __fadd_rn(__fmul_rn(self, c[i]), __fmul_rn(other, s[i])) : self;
  }
#pragma unroll
  for (int i = 0; i < N / 2; ++i)
    y[i] = float2_to_bf16x2(r[2 * i], r[2 * i + 1]);  // a passed-through value converts to itself
}

// RoPE of this lane's chunk in the contiguous layout: the elements below rd (all of the chunk in
// Fast mode, where a lane lies wholly on one side of rd).
template <int D, bool Fast>
__device__ __forceinline__ void rotate(const StepParams& p, int lane, const float (&c)[TeamShape<D>::kElems],
                                       const float (&s)[TeamShape<D>::kElems],
                                       const uint32_t (&partner)[TeamShape<D>::kElems / 2],
                                       uint32_t (&y)[TeamShape<D>::kElems / 2]) {
  constexpr int E = TeamShape<D>::kElems;
  const int first = lane * E;
  if (first >= p.rotary_dim) return;  // the whole lane passes through
  rotate_packed<E>(c, s, partner, Fast ? E : p.rotary_dim - first, y);
}

}  // namespace qsa::cuda::detail
