#pragma once
// The SPEC 2 per-step metadata on the GPU, as a device-level API: device pointers in, device
// pointers out, one kernel launch on the caller's stream (two above kMaxStagedMetadataRequests).
// Host header (no __global__ here); the kernels are in src/kernels/metadata_staged_tiles.cuh.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "qsa/status.hpp"
#include "qsa/types.hpp"

namespace qsa::cuda {

/// Largest NR of SPEC 1.3; every valid batch runs on the GPU.
inline constexpr int32_t kMaxMetadataRequests = 1 << 20;

/// Largest NR built in one launch. Up to here every block stages the whole request table in
/// shared memory (12 bytes per request: query_start_loc, chunk start, ring block), bounded by the
/// 227 KiB a block may use on sm_90; vLLM's max_num_seqs is far below (1024 on H100/H200). Above
/// it a first one-block launch writes the request table into `request_workspace` and the tiles
/// search it in global memory (two launches, same outputs).
inline constexpr int32_t kMaxStagedMetadataRequests = 16384;

/// Largest NR whose request table a warp holds in its lanes (one request a lane).
inline constexpr int32_t kMaxWarpTableRequests = 32;

/// Where a launch's tiles find the request table (row offsets, chunk starts, ring blocks and the
/// k-work prefix), chosen from NR and the block size by metadata_launch_shape.
enum class MetadataRequestTable {
  kWarpRegisters,   // NR <= kMaxWarpTableRequests at 128 or 256 threads: every warp loads it into its lanes
  kSharedPerBlock,  // NR <= kMaxStagedMetadataRequests: every block stages it in shared memory
  kGlobalWorkspace  // larger NR: a first one-block launch writes it into request_workspace
};

/// int32 elements of MetadataDeviceArgs::request_workspace for NR requests: 0 up to
/// kMaxStagedMetadataRequests, else 3·NR + 1 (chunk starts, ring blocks, k-work prefix and total).
constexpr int64_t metadata_workspace_elements(int64_t num_requests) {
  return num_requests <= kMaxStagedMetadataRequests ? 0 : 3 * num_requests + 1;
}

/// One step of one cache group, on the device. Every pointer is device memory owned by the
/// caller; nothing is read on the host. N and NR are launch parameters (fixed per captured CUDA
/// graph, as vLLM pads both); everything data-dependent (M = qsl[NR], e_j, the block ids) is read
/// by the kernel.
struct MetadataDeviceArgs {
  // Inputs.
  const int32_t* query_start_loc = nullptr;  // [num_requests + 1] row offsets; [0] == 0, non-decreasing, [NR] == M <= N
  const int32_t* seq_lens = nullptr;         // [num_requests] e_j >= q_j
  const int64_t* common_slot_mapping =
      nullptr;  // [>= num_tokens] main KV slot per row; read by compressed and passthrough only
  const int32_t* block_table =
      nullptr;  // [>= num_requests, block_table_cols]; element (r, c) at r * row_stride + c * col_stride
  int64_t block_table_row_stride = 0;  // elements between rows (>= 0)
  int64_t block_table_col_stride = 1;  // elements between columns (>= 0); column slices and column-major tables work
  int32_t block_table_cols = 0;        // W, may be 0 (then block_table may be null)
  int32_t num_tokens = 0;              // N: rows to write, padding included; 0 <= N <= 2^24
  int32_t num_requests = 0;            // NR, padded requests included; 1 <= NR <= kMaxMetadataRequests (2^20)
  CacheKind kind = CacheKind::kCompressed;
  int32_t compress_ratio = 0;  // C (compressed kind only), 2..1024
  int32_t builder_ratio =
      1;  // Cb of SPEC 1.2 for visible_blocks (C for compressed, the ring's ratio, 1 for passthrough)
  int32_t storage_block_size = 0;  // S (compressed kind only), >= 1
  int32_t ring_capacity = 0;       // R (ring kind only), >= 1

  // Outputs. Rows [0, N) and work rows [0, K) are written, nothing else.
  int32_t* token_to_req = nullptr;       // [num_tokens]
  int64_t* logical_positions = nullptr;  // [num_tokens]; -1 on padding rows
  int32_t* visible_blocks = nullptr;     // [num_tokens]
  int64_t* slot_mapping = nullptr;       // [num_tokens]; -1 = no slot
  int32_t* k_work_metadata =
      nullptr;  // [K][2] (request, work) pairs, 8-byte aligned; compressed kind only (K = 0 otherwise)

  // Workspace: [metadata_workspace_elements(NR)] int32, needed only when NR > kMaxStagedMetadataRequests.
  int32_t* request_workspace = nullptr;

  /// Copies the kind and its parameters from a host config (validated by qsa::validate()).
  void set_cache(const CacheKindConfig& cache);
  /// K = (N + (C-1)·NR) / C for the compressed kind, 0 for the others (SPEC 2).
  int64_t num_work_rows() const;
};

/// Tiling of one launch. Zero picks the default for the shape (see metadata_launch_shape).
struct MetadataLaunchConfig {
  int32_t rows_per_thread = 0;       // 1..4: rows of one row tile = threads * rows_per_thread
  int32_t work_rows_per_thread = 0;  // 1..4: k-work rows of one work tile = threads * work_rows_per_thread
  int32_t threads = 0;               // 256, 512 or 1024 threads per block; 128 when NR <= kMaxWarpTableRequests
  // With programmatic dependent launch (sm_90): the launch may start before the previous kernel
  // on the stream has ended; every block waits for it before reading anything.
  bool programmatic_launch = false;
};

/// The grid one launch uses: `work_blocks` blocks build k-work tiles, then `row_blocks` blocks
/// build row tiles, `threads` threads each, `shared_bytes` of dynamic shared memory per block.
/// With MetadataRequestTable::kGlobalWorkspace a one-block launch writing the request table into
/// the workspace comes first.
struct MetadataLaunchShape {
  MetadataRequestTable request_table = MetadataRequestTable::kSharedPerBlock;
  int32_t row_blocks = 0;
  int32_t work_blocks = 0;
  int32_t threads = 0;
  int32_t rows_per_thread = 0;
  int32_t work_rows_per_thread = 0;
  size_t shared_bytes = 0;
};

/// Raises the kernel's dynamic shared-memory limit so that launches with NR up to
/// kMaxStagedMetadataRequests fit. Call once per process before the first launch (MetadataBuffers::create
/// and CudaBackend do); not a stream operation, so it may also run while a stream is captured.
[[nodiscard]] Status prepare_metadata_launch(Error* error);

/// Builds token_to_req, logical_positions, visible_blocks, slot_mapping and (compressed kind)
/// k_work_metadata of SPEC 2 for one step, in one kernel launch on `stream` (two when
/// NR > kMaxStagedMetadataRequests).
///
/// Preconditions: the input is valid by SPEC 1.4 (the caller ran qsa::validate() on its host
/// copies); the device arrays have the sizes in MetadataDeviceArgs. The launch checks only its
/// host-side arguments (sizes, ratios, null or misaligned pointers) and returns kInvalidInput
/// naming the argument; it reads no device data on the host, allocates nothing and never
/// synchronizes, so it can be captured in a CUDA graph and replayed (fixed N and NR).
/// Postconditions: every output element of rows [0, N) and work rows [0, K) is written once;
/// nothing else is touched. Inputs and outputs must not overlap.
/// Determinism: integer arithmetic only; bitwise equal to qsa::reference::build_metadata on every
/// valid input, sentinels, padding rows and the (-1, -1) k-work tail included, on any stream.
/// No global workspace up to kMaxStagedMetadataRequests: the kernel keeps its request table, its
/// prefix sums and its search hints in registers (NR <= kMaxWarpTableRequests) or shared memory
/// (metadata_launch_shape(...).shared_bytes per block). Above it, args.request_workspace holds the
/// table (kInvalidInput if it is null).
///
/// Example (SPEC 8): qsl = {0, 2, 4}, seq_lens = {2, 5}, N = 6 (ring, R = 4) gives token_to_req
/// {0, 0, 1, 1, 0, 0} and logical_positions {0, 1, 3, 4, -1, -1}
/// (MetadataCudaVsReference.ReproducesEverySpecExample).
[[nodiscard]] Status launch_metadata(const MetadataDeviceArgs& args, cudaStream_t stream, Error* error,
                                     const MetadataLaunchConfig& config = {});

/// The grid and shared memory that launch_metadata would use for these arguments (host only).
MetadataLaunchShape metadata_launch_shape(const MetadataDeviceArgs& args, const MetadataLaunchConfig& config = {});

}  // namespace qsa::cuda
