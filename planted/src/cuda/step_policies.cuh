#pragma once
// The planted step-update bugs as policies of step_update_row_teams_kernel (nvcc only): each
// derives from the shipped kernel's StepPolicy (optimized/src/kernels/step_update_policy.cuh,
// reached through optimized's detail header) and replaces the one operation its bug changes, so a
// planted kernel differs from the shipped one in that operation only (docs/decisions.md, "Kernel
// policies"). step_planted.hpp names each with a StepBug; step_planted_kernels.cu maps the one to
// the other.

#include <cstdint>

#include "qsa/cuda/detail/kernel_variants.cuh"

namespace qsa::planted {

using cuda::detail::StepParams;
using cuda::detail::StepPolicy;

// Item (j, 0) commits the ring suffix before pooling its group.
struct CommitBeforeRead : StepPolicy {
  static constexpr bool kCommitsRingAfterReads = false;
};

// Ring rows addressed by position mod (R - 1).
struct RingOneRowShort : StepPolicy {
  static __device__ __forceinline__ uint32_t ring_index(const StepParams& p, uint32_t position) {
    return p.ring_capacity > 1 ? position % static_cast<uint32_t>(p.ring_capacity - 1) : 0u;
  }
};

// h and w swapped in the MRoPE axis selection.
struct WrongMropeAxis : StepPolicy {
  static int mrope_axis(int pair, const StepParams& p) {
    const int axis = StepPolicy::mrope_axis(pair, p);
    return axis == 0 ? 0 : 3 - axis;
  }
};

// fp8 store without saturation (beyond +-448 -> NaN).
struct Fp8NoSaturation : StepPolicy {
  static __device__ __forceinline__ uint16_t to_e4m3x2(uint32_t pair) {
    return cuda::detail::bf16x2_to_e4m3x2</*Saturate=*/false>(pair);
  }
};

// No bound check on the ring block: a block past the cache is read and written.
struct RingBlockUnchecked : StepPolicy {
  static __device__ __forceinline__ int32_t checked_ring_block(const StepParams&, int32_t b) { return b; }
};

// The Q path stops at M = qsl[NR] rows, padding rows unwritten.
struct QOutSkipsPadding : StepPolicy {
  static __device__ __forceinline__ int64_t q_path_rows(const StepParams& p) {
    return p.query_start_loc[p.num_requests];
  }
};

// The cross-lane sum of squares with offsets lanes/2 .. 1: another tree than SPEC 6.2's.
struct ReversedTree : StepPolicy {
  template <int D, int H>
  static __device__ __forceinline__ void sum_across_team(float (&ss)[H]) {
    constexpr int kLanes = cuda::detail::TeamShape<D>::kLanes;
#pragma unroll
    for (int offset = kLanes / 2; offset >= 1; offset /= 2)
#pragma unroll
      for (int k = 0; k < H; ++k) ss[k] = __fadd_rn(ss[k], __shfl_xor_sync(0xFFFFFFFFu, ss[k], offset));
  }

  // Each half reduced by the reversed tree, then the two added.
  template <int D, int H>
  static __device__ __forceinline__ void sum_across_halves(const float (&rotary)[H], const float (&pass)[H], int,
                                                           float (&ss)[H]) {
    float both[2 * H];
#pragma unroll
    for (int k = 0; k < H; ++k) {
      both[k] = rotary[k];
      both[H + k] = pass[k];
    }
    sum_across_team<D, 2 * H>(both);
#pragma unroll
    for (int k = 0; k < H; ++k) ss[k] = __fadd_rn(both[k], both[H + k]);
  }
};

// The group rotated at (gC, gC, gC) although the ring caches positions.
struct GroupPositionIgnoresTail : StepPolicy {
  static __device__ __forceinline__ bool reads_group_positions(const StepParams&) { return false; }
};

// No griddepcontrol.wait: under PDL it reads the metadata before it is written.
struct SkipsGridWait : StepPolicy {
  static __device__ __forceinline__ void wait_for_inputs() {}
};

}  // namespace qsa::planted
