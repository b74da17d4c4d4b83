#pragma once
// StepPolicy: the operations of step_update_row_teams_kernel (and of its launch) that a policy
// type names, each as the shipped kernel computes it. The kernel templates take the policy as
// their second parameter and call Policy::<operation> at each of these points (CUTLASS's epilogue
// and iterator policies; docs/decisions.md, "Kernel policies"); another policy derives from this
// one and replaces a member. Every member is inline, so the shipped instantiation compiles to the
// code it would be if the member's body were written at the call.

#include <cstdint>

#include "kernels/programmatic_launch.cuh"
#include "kernels/step_q_halves.cuh"

namespace qsa::cuda::detail {

struct StepPolicy {
  /// Item (j, 0) commits the ring suffix after every lane's reads of its group (phase B after
  /// phase A); off, before them.
  static constexpr bool kCommitsRingAfterReads = true;

  /// Host, at launch: the MRoPE axis of rotary pair `pair` (SPEC 6.3): T, then H and W in turn
  /// while their sections last.
  static int mrope_axis(int pair, const StepParams& p) {
    if (pair % 3 == 1 && pair < 3 * p.mrope_sections[1]) return 1;
    if (pair % 3 == 2 && pair < 3 * p.mrope_sections[2]) return 2;
    return 0;
  }

  /// The ring row of `position` in its block: position mod R (positions are below 2^31).
  static __device__ __forceinline__ uint32_t ring_index(const StepParams& p, uint32_t position) {
    return p.ring_rows.remainder(position);
  }

  /// A request's ring block from its table entry `b`: -1 when missing or past the cache.
  static __device__ __forceinline__ int32_t checked_ring_block(const StepParams& p, int32_t b) {
    return b >= 0 && b < p.ring_num_blocks ? b : -1;
  }

  /// The rows the Q path normalises and stores: every token row, padding rows included (SPEC 5).
  static __device__ __forceinline__ int64_t q_path_rows(const StepParams& p) { return p.num_tokens; }

  /// Whether a closing group's position comes from the step's rows or the ring's tail (the ring
  /// caches positions); otherwise (gC, gC, gC).
  static __device__ __forceinline__ bool reads_group_positions(const StepParams& p) { return p.ring_positions; }

  /// The sum of squares across a team, SPEC 6.2's tree (step_row_transform.cuh).
  template <int D, int H>
  static __device__ __forceinline__ void sum_across_team(float (&ss)[H]) {
    team_sum<D, H>(ss);
  }

  /// The same tree in the Q path's halves layout (step_q_halves.cuh).
  template <int D, int H>
  static __device__ __forceinline__ void sum_across_halves(const float (&rotary)[H], const float (&pass)[H], int lane,
                                                           float (&ss)[H]) {
    halves_team_sum<D, H>(rotary, pass, lane, ss);
  }

  /// Two bf16 (a packed pair) to two e4m3fn, saturating (SPEC 6.4).
  static __device__ __forceinline__ uint16_t to_e4m3x2(uint32_t pair) { return bf16x2_to_e4m3x2(pair); }

  /// Past this point a block may read what the previous kernel wrote (programmatic_launch.cuh).
  static __device__ __forceinline__ void wait_for_inputs() { wait_for_previous_grid(); }
};

}  // namespace qsa::cuda::detail
