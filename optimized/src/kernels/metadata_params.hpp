#pragma once
// The kernels' parameter blocks (passed by value; the ring kind's tiles take their own order) and
// their launch constants. Plain C++: no CUDA headers.

#include <cstddef>
#include <cstdint>

#include "kernels/invariant_divider.hpp"

namespace qsa::cuda::detail {

// Threads per block: 256, 512 or 1024 (one staged request per thread up to NR = 1024), 128 with
// the warp table only; a template parameter of the kernel, chosen per launch.
inline constexpr int kMaxMetadataThreads = 1024;
inline constexpr int kMaxRowsPerThread = 4;      // row tile = 1 .. 4 rows per thread of the block
inline constexpr int kMaxWorkRowsPerThread = 4;  // work tile = 1 .. 4 k-work rows per thread of the block
inline constexpr int kChunkRows = 32;            // a search hint is kept for every 32 rows of a tile
inline constexpr int kStageBatch = 4;            // requests a thread loads before storing any (NR <= 1024: one batch)

// NR > kMaxStagedMetadataRequests: one block writes the request table, then tiles of 256 threads.
inline constexpr int kRequestTableThreads = 1024;
inline constexpr int kGlobalTableThreads = 256;
// NR <= kMaxWarpTableRequests: tiles whose warps hold the table in their lanes, 256 threads a
// block, or 128 up to kNarrowWarpTableMaxRows rows (twice the blocks, with no per-block staging to
// pay: 1.06 against 1.21 us at 2 x 4096, ring kind with PDL; docs/cuda-metadata.md).
inline constexpr int kWarpTableThreads = 256;
inline constexpr int kNarrowWarpTableThreads = 128;
inline constexpr int64_t kNarrowWarpTableMaxRows = 8192;

inline constexpr int32_t kKindCompressed = 0;
inline constexpr int32_t kKindRing = 1;
inline constexpr int32_t kKindPassthrough = 2;

/// Everything one launch needs, by value (184 bytes of kernel parameters).
struct MetadataParams {
  const int32_t* query_start_loc;      // [num_requests + 1] row offsets; [0] == 0, non-decreasing
  const int32_t* seq_lens;             // [num_requests] e_j
  const int64_t* common_slot_mapping;  // [>= num_tokens]; null for the ring kind
  const int32_t* block_table;  // (r, c) at r * row_stride + c * col_stride; r < num_requests, c < block_table_cols
  int64_t row_stride;
  int64_t col_stride;
  int32_t block_table_cols;             // W
  int32_t num_tokens;                   // N
  int32_t num_requests;                 // NR >= 1
  int32_t num_work_rows;                // K (0 unless compressed)
  int32_t kind;                         // kKindCompressed, kKindRing or kKindPassthrough
  InvariantDivider compress_ratio;      // C (compressed; 1 otherwise)
  InvariantDivider builder_ratio;       // Cb (visible_blocks)
  InvariantDivider storage_block_size;  // S (compressed; 1 otherwise)
  InvariantDivider ring_capacity;       // R (ring; 1 otherwise)

  int32_t* token_to_req;       // [num_tokens]
  int64_t* logical_positions;  // [num_tokens]
  int32_t* visible_blocks;     // [num_tokens]
  int64_t* slot_mapping;       // [num_tokens]
  int32_t* k_work_metadata;    // [num_work_rows][2], 8-byte aligned

  int32_t rows_per_thread;       // 1..kMaxRowsPerThread
  int32_t work_rows_per_thread;  // 1..kMaxWorkRowsPerThread
  int32_t work_blocks;           // blocks [0, work_blocks) build k-work tiles, the rest row tiles

  // Last, so that the fields above keep their offsets: moving them by 8-24 bytes cost the ring kind
  // 0.05 us a launch, with the same SASS only reordered. The request table in the workspace
  // (MetadataRequestTable::kGlobalWorkspace launches; null otherwise): [NR] chunk starts s_j = e_j - q_j, [NR] ring
  // blocks block_table[j][0] (ring kind, W > 0) or -1, [NR + 1] the exclusive prefix of n_j, then
  // their sum (compressed).
  int32_t* request_tables;
};

/// The ring kind's tiles take MetadataParams' fields in another order: the ones they read fill the
/// first 112 bytes, two lines of the constant bank from c[0x0][0x210], the first of them shared
/// with what every kernel reads at its start. A line's first read in an SM waits for it, on every
/// tile's chain: 2-5 % less time a plain launch, 9-11 % with PDL at 2 and 4 x 4096
/// (docs/cuda-metadata.md). The compressed kind keeps MetadataParams: the same
/// order cost it 3-7 % at prefill, although it read as many lines.
struct RingMetadataParams {
  const int32_t* query_start_loc;
  const int32_t* seq_lens;
  const int32_t* block_table;
  int64_t row_stride;
  int32_t* token_to_req;
  int64_t* logical_positions;
  int32_t* visible_blocks;
  int64_t* slot_mapping;
  int32_t block_table_cols;
  int32_t num_tokens;
  int32_t num_requests;
  int32_t rows_per_thread;
  InvariantDivider builder_ratio;
  InvariantDivider ring_capacity;
  int32_t kind;
  int32_t work_rows_per_thread;
  // Not read by the ring kind's tiles (work_blocks is 0 for it), or only with the table in the
  // workspace (request_tables).
  int32_t work_blocks;
  int32_t num_work_rows;
  const int64_t* common_slot_mapping;
  int64_t col_stride;
  int32_t* k_work_metadata;
  int32_t* request_tables;
  InvariantDivider compress_ratio;
  InvariantDivider storage_block_size;
};

/// The bytes the ring kind's tiles read unless their request table is in the workspace.
inline constexpr size_t kRingTileParameterBytes = offsetof(RingMetadataParams, work_blocks);
static_assert(kRingTileParameterBytes == 112, "the ring kind's fields fill two lines");
static_assert(sizeof(RingMetadataParams) == 176, "no padding");

/// The parameter block of the tiles of kind kKind.
template <int32_t kKind>
struct TileParamsOf {
  using type = MetadataParams;
};
template <>
struct TileParamsOf<kKindRing> {
  using type = RingMetadataParams;
};
template <int32_t kKind>
using TileParams = typename TileParamsOf<kKind>::type;

/// `p`'s fields in the ring kind's order (host code, before the launch).
inline RingMetadataParams ring_tile_params(const MetadataParams& p) {
  RingMetadataParams r{};
  r.query_start_loc = p.query_start_loc;
  r.seq_lens = p.seq_lens;
  r.block_table = p.block_table;
  r.row_stride = p.row_stride;
  r.token_to_req = p.token_to_req;
  r.logical_positions = p.logical_positions;
  r.visible_blocks = p.visible_blocks;
  r.slot_mapping = p.slot_mapping;
  r.block_table_cols = p.block_table_cols;
  r.num_tokens = p.num_tokens;
  r.num_requests = p.num_requests;
  r.rows_per_thread = p.rows_per_thread;
  r.builder_ratio = p.builder_ratio;
  r.ring_capacity = p.ring_capacity;
  r.kind = p.kind;
  r.work_rows_per_thread = p.work_rows_per_thread;
  r.work_blocks = p.work_blocks;
  r.num_work_rows = p.num_work_rows;
  r.common_slot_mapping = p.common_slot_mapping;
  r.col_stride = p.col_stride;
  r.k_work_metadata = p.k_work_metadata;
  r.request_tables = p.request_tables;
  r.compress_ratio = p.compress_ratio;
  r.storage_block_size = p.storage_block_size;
  return r;
}

/// Shared-memory words of a row tile: qsl [NR + 1], chunk starts [NR], ring blocks [NR], hints.
constexpr int64_t row_tile_shared_words(int64_t num_requests, int64_t threads, int64_t rows_per_thread) {
  return (num_requests + 1) + 2 * num_requests + (threads * rows_per_thread) / kChunkRows + 1;
}

/// Shared-memory words of a work tile: n_j then their prefix [NR], hints, warp totals.
constexpr int64_t work_tile_shared_words(int64_t num_requests, int64_t threads, int64_t work_rows_per_thread) {
  return num_requests + (threads * work_rows_per_thread) / kChunkRows + 1 + threads / 32;
}

}  // namespace qsa::cuda::detail
