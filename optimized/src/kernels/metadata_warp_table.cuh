#pragma once
// The request table of a launch with NR <= kMaxWarpTableRequests in one warp's registers: lane j
// holds request j. A warp's rows are consecutive, so two ballots bound the requests its 32 rows
// can belong to; only a warp whose rows cross a request boundary searches further, by shuffles.
// No shared memory and no barrier, so a warp never waits for the rest of its block (the staged
// path's table, marks, barrier and shared search were most of its instructions at prefill, as
// Nsight Compute's instruction counts showed).
//
// Every function here is warp-collective: all 32 lanes of the warp call it together.

#include <cuda_runtime.h>

#include <climits>
#include <cstdint>

#include "kernels/metadata_params.hpp"

namespace qsa::cuda::detail {

inline constexpr unsigned kFullWarp = 0xffffffffu;

__device__ __forceinline__ int32_t warp_inclusive_sum(int32_t value) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
#pragma unroll
  for (int delta = 1; delta < 32; delta <<= 1) {
    const int32_t other = __shfl_up_sync(kFullWarp, value, delta);
    if (lane >= delta) value += other;
  }
  return value;
}

/// The key lane j holds for the search: keys[j] for j in [1, nr), INT_MAX on every other lane
/// (lane 0 included: keys[0] <= value always holds, so it is never counted).
__device__ __forceinline__ int32_t warp_search_key(int32_t key, int32_t nr) {
  const int32_t lane = static_cast<int32_t>(threadIdx.x) & 31;
  return lane >= 1 && lane < nr ? key : INT_MAX;
}

/// Largest j in [0, nr) with keys[j] <= value (kStrict: keys[j] < value), keys non-decreasing,
/// lane j holding warp_search_key(keys[j], nr). The lanes' values must be non-decreasing over the
/// lanes (a warp's rows), so every answer lies between those of lane 0 and lane 31.
template <bool kStrict>
__device__ __forceinline__ int32_t warp_search_last_at_most(int32_t key, int32_t value) {
  const int32_t first = __shfl_sync(kFullWarp, value, 0);
  const int32_t last = __shfl_sync(kFullWarp, value, 31);
  int32_t lo = __popc(__ballot_sync(kFullWarp, kStrict ? key < first : key <= first));
  int32_t hi = __popc(__ballot_sync(kFullWarp, kStrict ? key < last : key <= last));
  while (__any_sync(kFullWarp, lo < hi)) {
    const int32_t mid = (lo + hi + 1) >> 1;
    const int32_t mid_key = __shfl_sync(kFullWarp, key, mid);
    const bool inside = kStrict ? mid_key < value : mid_key <= value;
    if (lo < hi) {
      if (inside)
        lo = mid;
      else
        hi = mid - 1;
    }
  }
  return lo;
}

/// Lane j's request for the row tiles: its row offsets, chunk start s_j = e_j - q_j and (ring
/// kind, W > 0) ring block; lanes j >= nr hold nothing that a search can reach.
struct WarpRowTable {
  int32_t key;    // warp_search_key(qsl[j], nr)
  int32_t begin;  // qsl[j]
  int32_t end;    // qsl[j + 1]
  int32_t start;  // s_j
  int32_t ring;   // block_table[j][0] or -1
};

template <int32_t kKind>
__device__ __forceinline__ WarpRowTable load_warp_row_table(const TileParams<kKind>& p) {
  const int32_t nr = p.num_requests;
  const int32_t j = static_cast<int32_t>(threadIdx.x) & 31;
  WarpRowTable table{INT_MAX, 0, 0, 0, -1};
  if (j < nr) {
    const bool ring_blocks = kKind == kKindRing && p.block_table_cols > 0;
    table.begin = __ldg(p.query_start_loc + j);
    table.end = __ldg(p.query_start_loc + j + 1);
    const int32_t seq_len = __ldg(p.seq_lens + j);
    table.ring = ring_blocks ? __ldg(p.block_table + static_cast<int64_t>(j) * p.row_stride) : -1;
    table.start = seq_len - (table.end - table.begin);
  }
  table.key = warp_search_key(table.begin, nr);
  return table;
}

/// The request of each lane's row t (the warp's rows consecutive over its lanes) and that
/// request's entries; `ring`: -1 unless kKind is the ring kind.
struct WarpRowRequest {
  int32_t j;
  int32_t begin;
  int32_t end;
  int32_t start;
  int32_t ring;
};

template <bool kStrict, int32_t kKind>
__device__ __forceinline__ WarpRowRequest find_warp_row_request(const WarpRowTable& lanes, int32_t t) {
  WarpRowRequest found;
  found.j = warp_search_last_at_most<kStrict>(lanes.key, t);
  found.begin = __shfl_sync(kFullWarp, lanes.begin, found.j);
  found.end = __shfl_sync(kFullWarp, lanes.end, found.j);
  found.start = __shfl_sync(kFullWarp, lanes.start, found.j);
  found.ring = kKind == kKindRing ? __shfl_sync(kFullWarp, lanes.ring, found.j) : -1;
  return found;
}

/// Lane j's request for the k-work tiles: the exclusive prefix of n over the lanes and their sum.
struct WarpWorkTable {
  int32_t key;     // warp_search_key(prefix, nr)
  int32_t prefix;  // sum of n_i over i < j
  int32_t total;   // sum of every n_j (the same on every lane)
};

/// `work`: n_j on lane j < nr, 0 on the others.
__device__ __forceinline__ WarpWorkTable warp_work_table(int32_t work, int32_t nr) {
  const int32_t inclusive = warp_inclusive_sum(work);
  const int32_t prefix = inclusive - work;
  return WarpWorkTable{warp_search_key(prefix, nr), prefix, __shfl_sync(kFullWarp, inclusive, 31)};
}

}  // namespace qsa::cuda::detail
