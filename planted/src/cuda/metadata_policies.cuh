#pragma once
// The planted metadata bugs as policies of metadata_staged_tiles_kernel (nvcc only): each derives
// from the shipped kernel's MetadataPolicy (optimized/src/kernels/metadata_policy.cuh, reached
// through optimized's detail header) and replaces the one operation its bug changes, so a planted
// kernel differs from the shipped one in that operation only (docs/decisions.md, "Kernel
// policies"). metadata_planted.hpp names each with a MetadataVariant; metadata_planted_kernels.cu
// maps the one to the other.

#include <cstdint>

#include "qsa/cuda/detail/kernel_variants.cuh"

namespace qsa::planted {

// Every planted kernel keeps the plain prologue and the 256-thread staged tiles: the same outputs
// from fewer kernels to build (docs/decisions.md, "CUDA metadata kernel, how it is instantiated").
struct PlantedMetadataPolicy : cuda::detail::MetadataPolicy {
  static constexpr bool kWarmsRingParameters = false;
  static constexpr bool kWideStagedTiles = false;
};

// Compressed: logical block L == W passes the bound check (reads one column past the table).
struct ColumnBoundOffByOne : PlantedMetadataPolicy {
  static __device__ __forceinline__ bool in_block_table(int32_t logical_block, int32_t cols) {
    return logical_block <= cols;
  }
};

// token_to_req search tests qsl[mid] < t instead of <=.
struct RequestSearchOffByOne : PlantedMetadataPolicy {
  static constexpr bool kStrictRowSearch = true;
};

// The k-work scan reads the warp totals without the barrier after they are written.
struct WorkPrefixRace : PlantedMetadataPolicy {
  static __device__ __forceinline__ void warp_totals_barrier() {}
};

// Rows M..N-1 are left untouched.
struct PaddingRowsUnwritten : PlantedMetadataPolicy {
  template <typename Params>
  static __device__ __forceinline__ void store_padding_row(const Params&, int32_t) {}
};

// Ring: the "last R rows of the chunk" survival test is dropped.
struct RingKeepsEveryRow : PlantedMetadataPolicy {
  static __device__ __forceinline__ bool ring_keeps_row(int32_t, int32_t, uint32_t) { return true; }
};

// Compressed: the common slot's sign is not consulted.
struct NegativeCommonSlotIgnored : PlantedMetadataPolicy {
  static __device__ __forceinline__ bool common_slot_usable(int64_t) { return true; }
};

// n_j = max(1, ...) also for q_j = 0.
struct ZeroLengthRequestGetsWork : PlantedMetadataPolicy {
  static __device__ __forceinline__ int32_t work_items(int32_t row_begin, int32_t row_end, int32_t seq_len,
                                                       const cuda::detail::InvariantDivider& c) {
    return max(1, c.div(seq_len) - c.div(seq_len - (row_end - row_begin)));
  }
};

// K-work rows past sum(n_j) (the items (-1, -1)) are not written.
struct WorkTailUnwritten : PlantedMetadataPolicy {
  static __device__ __forceinline__ void store_work_row(int2* out, int32_t r, int2 item) {
    if (item.x >= 0) out[r] = item;
  }
};

// Compressed: block_table's column addressed as if col_stride == 1.
struct ColumnStrideIgnored : PlantedMetadataPolicy {
  template <typename Params>
  static __device__ __forceinline__ int64_t column_stride(const Params&) {
    return 1;
  }
};

inline constexpr uint64_t kHoldNanoseconds = 200000;  // far longer than a dependent's launch

// Spins for `nanoseconds` of the global timer.
__device__ __forceinline__ void hold_for(uint64_t nanoseconds) {
  uint64_t start = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  for (uint64_t now = start; now - start < nanoseconds;) {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  }
}

// Not a bug: a correct kernel that holds its writes back for kHoldNanoseconds after it lets the
// next grid launch, so that a step kernel skipping its PDL wait reads them early every time.
struct HoldsWritesAfterTrigger : PlantedMetadataPolicy {
  static __device__ __forceinline__ void after_next_grid_allowed() { hold_for(kHoldNanoseconds); }
};

}  // namespace qsa::planted
