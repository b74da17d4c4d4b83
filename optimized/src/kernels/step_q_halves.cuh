#pragma once
// The Q path's halves layout, for rd == D/2 on the fast layout: lane l of a team holds E/2
// elements of the rotary half, [l·E/2, (l+1)·E/2), and E/2 of the pass-through half,
// [D/2 + l·E/2, ...). In the contiguous layout (step_row_transform.cuh) the lanes past rd hold no
// rotary element and sit idle through RoPE; here every lane rotates E/2 elements, so a warp
// issues RoPE's instructions for half as many elements. A rotary element's partner (d ± rd/2)
// lies in lane l ^ (lanes/2) at the same offset.
//
// The sum of squares keeps SPEC 6.2's tree: each piece is a subtree of its half (the lane's
// pairwise sum, then xor shuffles across the team), and the two halves' sums are the root's
// children.

#include <cstdint>

#include "kernels/step_row_transform.cuh"

namespace qsa::cuda::detail {

template <int D>
struct HalvesShape {
  static constexpr int kLanes = TeamShape<D>::kLanes;
  static constexpr int kPiece = TeamShape<D>::kElems / 2;  // elements of each half per lane
};

// Where lane `lane`'s piece of the rotary half starts; the pass-through piece is D/2 further.
template <int D>
__device__ __forceinline__ int halves_offset(int lane) {
  return lane * HalvesShape<D>::kPiece;
}

// The root of SPEC 6.2's tree for H rows, from each lane's subtree sums of its two pieces. The
// two halves' reductions share shuffles: at offset 1 an even lane keeps the rotary chain and an odd
// lane the pass-through chain, each sending the other; the root adds the two at the end.
template <int D, int H>
__device__ __forceinline__ void halves_team_sum(const float (&rotary)[H], const float (&pass)[H], int lane,
                                                float (&ss)[H]) {
  constexpr int kLanes = HalvesShape<D>::kLanes;
  const bool odd = lane & 1;
#pragma unroll
  for (int k = 0; k < H; ++k) {
    const float sent = odd ? rotary[k] : pass[k];
    ss[k] = __fadd_rn(odd ? pass[k] : rotary[k], __shfl_xor_sync(0xFFFFFFFFu, sent, 1));
  }
#pragma unroll
  for (int offset = 2; offset < kLanes; offset *= 2)
#pragma unroll
    for (int k = 0; k < H; ++k) ss[k] = __fadd_rn(ss[k], __shfl_xor_sync(0xFFFFFFFFu, ss[k], offset));
#pragma unroll
  for (int k = 0; k < H; ++k) ss[k] = __fadd_rn(ss[k], __shfl_xor_sync(0xFFFFFFFFu, ss[k], 1));
}

// The weight of the lane's two pieces as loaded (packed bf16 pairs). A Q block loads it before the
// PDL wait and q_row_halves turns it into the gain only after issuing its first loads: computed
// at once, the gain's adds waited for the weight's L2 read before any q or position load issued
// (0.4 to 3.2 % slower; docs/cuda-step-update.md, "The Q prologue's order").
template <int D>
struct HalvesWeight {
  uint32_t rotary[HalvesShape<D>::kPiece / 2];
  uint32_t pass[HalvesShape<D>::kPiece / 2];
};

template <int D>
__device__ __forceinline__ HalvesWeight<D> load_halves_weight(const uint16_t* weight, int lane) {
  constexpr int P = HalvesShape<D>::kPiece;
  HalvesWeight<D> w;
  load_bits<P, true>(weight + halves_offset<D>(lane), w.rotary);
  load_bits<P, true>(weight + D / 2 + halves_offset<D>(lane), w.pass);
  return w;
}

// gain = 1 + f(w) of the lane's two pieces.
template <int D>
struct HalvesGain {
  float rotary[HalvesShape<D>::kPiece];
  float pass[HalvesShape<D>::kPiece];
};

template <int D>
__device__ __forceinline__ HalvesGain<D> halves_gain(const HalvesWeight<D>& w) {
  constexpr int P = HalvesShape<D>::kPiece;
  HalvesGain<D> gain;
  unpack<P>(w.rotary, gain.rotary);
  unpack<P>(w.pass, gain.pass);
#pragma unroll
  for (int i = 0; i < P; ++i) {
    gain.rotary[i] = __fadd_rn(1.0f, gain.rotary[i]);
    gain.pass[i] = __fadd_rn(1.0f, gain.pass[i]);
  }
  return gain;
}

// The (cos, ±sin) of the lane's rotary piece at the row positions `pos`; `axes`: 2 bits per
// element of the piece (halves_lane_axes).
template <int D>
__device__ __forceinline__ void load_halves_cos_sin(const StepParams& p, const int64_t (&pos)[3], int lane,
                                                    uint32_t axes, float (&c)[HalvesShape<D>::kPiece],
                                                    float (&s)[HalvesShape<D>::kPiece]) {
  constexpr int kHalfPairs = D / 4;  // rd / 2
  const int first = halves_offset<D>(lane);
  const bool low = first < kHalfPairs;
  load_rotary_pairs<HalvesShape<D>::kPiece>(p, pos, D / 2, low ? first : first - kHalfPairs, low, axes, c, s);
}

// The MRoPE axes of the lane's rotary piece: the contiguous layout's lane_axes of the lane that
// holds it (lane / 2), shifted to the piece (2 bits per element).
template <int D>
__device__ __forceinline__ uint32_t halves_lane_axes(const StepParams& p, int lane) {
  return p.lane_axes[lane >> 1] >> ((lane & 1) * 2 * HalvesShape<D>::kPiece);
}

// One token row of the Q path in the halves layout, every head, in passes of H heads (as q_row).
template <int D, typename Policy, int H>
__device__ void q_row_halves(const StepParams& p, int64_t t, uint32_t axes, const HalvesWeight<D>& weight, int lane) {
  constexpr int P = HalvesShape<D>::kPiece;
  constexpr int kLanes = HalvesShape<D>::kLanes;
  const int64_t rows = Policy::q_path_rows(p);
  const bool active = t < rows;
  const int h_end = p.num_heads;
  const int64_t row = t * p.num_heads * D + halves_offset<D>(lane);
  const uint16_t* q_in = p.queries + row;
  // bits[k][0]: the rotary piece, bits[k][1]: the pass-through piece, as packed pairs.
  auto load_pass = [&](int h0, uint32_t(&bits)[H][2][P / 2]) {
#pragma unroll
    for (int k = 0; k < H; ++k) {
      if (active && h0 + k < h_end) {
        load_bits<P, true, CacheHint::kStreaming>(q_in + (h0 + k) * D, bits[k][0]);
        load_bits<P, true, CacheHint::kStreaming>(q_in + (h0 + k) * D + D / 2, bits[k][1]);
      } else {
#pragma unroll
        for (int i = 0; i < P / 2; ++i) bits[k][0][i] = bits[k][1][i] = 0u;
      }
    }
  };
  uint32_t bits[H][2][P / 2];
  load_pass(0, bits);
  int64_t pos[3] = {0, 0, 0};
  if (active) row_positions(p, t, pos);
  float c[P];
  float s[P];
  load_halves_cos_sin<D>(p, pos, lane, axes, c, s);
  const HalvesGain<D> gain = halves_gain<D>(weight);
  const int head_bytes = p.fp8 ? D : 2 * D;
  uint8_t* q_out = static_cast<uint8_t*>(p.q_out) + row * (p.fp8 ? 1 : 2);
  for (int h0 = 0; h0 < h_end; h0 += H) {
    float rotary[H][P];
    float pass[H][P];
#pragma unroll
    for (int k = 0; k < H; ++k) {
      unpack<P>(bits[k][0], rotary[k]);
      unpack<P>(bits[k][1], pass[k]);
    }
    load_pass(h0 + H, bits);
    float ss_rotary[H];
    float ss_pass[H];
#pragma unroll
    for (int k = 0; k < H; ++k) {
      ss_rotary[k] = lane_sum_of_squares<P>(rotary[k]);
      ss_pass[k] = lane_sum_of_squares<P>(pass[k]);
    }
    float ss[H];
    Policy::template sum_across_halves<D, H>(ss_rotary, ss_pass, lane, ss);
    float rrms[H];
    team_rrms<D, H>(ss, p.eps, lane, rrms);
#pragma unroll
    for (int k = 0; k < H; ++k) {
      uint32_t y[P / 2];
      uint32_t y_pass[P / 2];
      normalize<P>(rotary[k], gain.rotary, rrms[k], y);
      normalize<P>(pass[k], gain.pass, rrms[k], y_pass);
      uint32_t partner[P / 2];
#pragma unroll
      for (int i = 0; i < P / 2; ++i) partner[i] = __shfl_xor_sync(0xFFFFFFFFu, y[i], kLanes / 2);
      rotate_packed<P>(c, s, partner, P, y);
      if (active && h0 + k < h_end) {
        uint8_t* head = q_out + (h0 + k) * head_bytes;
        store_chunk<P, Policy, true, CacheHint::kStreaming>(head, 0, y, p.fp8);
        store_chunk<P, Policy, true, CacheHint::kStreaming>(head, D / 2, y_pass, p.fp8);
      }
    }
  }
}

}  // namespace qsa::cuda::detail
