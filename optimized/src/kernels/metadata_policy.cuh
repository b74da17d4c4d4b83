#pragma once
// MetadataPolicy: the operations of metadata_staged_tiles_kernel that a policy type names, each as
// the shipped kernel computes it. The kernel templates take the policy as their first parameter
// and call Policy::<operation> at each of these points (CUTLASS's epilogue and iterator policies;
// docs/decisions.md, "Kernel policies"); another policy derives from this one and replaces a
// member. Every member is inline, so the shipped instantiation compiles to the code it would be
// if the member's body were written at the call.

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/invariant_divider.hpp"
#include "kernels/metadata_params.hpp"

namespace qsa::cuda::detail {

struct MetadataPolicy {
  /// Launched with PDL, the ring kind's tiles warm the parameter cache before the wait
  /// (metadata_staged_tiles.cuh, warms_ring_parameters); off, they keep the plain prologue, which
  /// computes the same outputs with 12 kernels fewer to build.
  static constexpr bool kWarmsRingParameters = true;
  /// The staged table's 512- and 1024-thread tilings (a caller may ask for them) beside 256.
  static constexpr bool kWideStagedTiles = true;
  /// The row search: the largest j with qsl[j] <= t (false), or qsl[j] < t (true).
  static constexpr bool kStrictRowSearch = false;

  /// n_j of SPEC 2 for a request with rows [row_begin, row_end) and e_j = seq_len.
  static __device__ __forceinline__ int32_t work_items(int32_t row_begin, int32_t row_end, int32_t seq_len,
                                                       const InvariantDivider& c) {
    const int32_t q = row_end - row_begin;
    if (q == 0) return 0;
    return max(1, c.div(seq_len) - c.div(seq_len - q));
  }

  /// The k-work scan's barrier between the warp totals' stores and their loads.
  static __device__ __forceinline__ void warp_totals_barrier() { __syncthreads(); }

  /// Whether a compressed row's logical block lies in the block table's `cols` columns.
  static __device__ __forceinline__ bool in_block_table(int32_t logical_block, int32_t cols) {
    return logical_block < cols;
  }

  /// Whether a compressed row's common slot lets it have a slot (SPEC 2: a negative one does not).
  static __device__ __forceinline__ bool common_slot_usable(int64_t common) { return common >= 0; }

  /// The block table's column stride.
  template <typename Params>
  static __device__ __forceinline__ int64_t column_stride(const Params& p) {
    return p.col_stride;
  }

  /// Whether ring row t of a chunk ending at row `end` is one of its last R rows (it keeps a slot).
  static __device__ __forceinline__ bool ring_keeps_row(int32_t t, int32_t end, uint32_t ring_capacity) {
    return t + static_cast<int32_t>(ring_capacity) >= end;
  }

  /// The padding values of row t >= M.
  template <typename Params>
  static __device__ __forceinline__ void store_padding_row(const Params& p, int32_t t) {
    p.token_to_req[t] = 0;
    p.logical_positions[t] = -1;
    p.visible_blocks[t] = 0;
    p.slot_mapping[t] = -1;
  }

  /// K-work row r: (j, r - prefix_j) below sum(n_j), (-1, -1) past it.
  static __device__ __forceinline__ void store_work_row(int2* out, int32_t r, int2 item) { out[r] = item; }

  /// After the kernel lets the next grid launch, before its first store: nothing.
  static __device__ __forceinline__ void after_next_grid_allowed() {}
};

}  // namespace qsa::cuda::detail
