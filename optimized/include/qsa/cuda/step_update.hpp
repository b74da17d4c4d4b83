#pragma once
// The SPEC 5 step update on the GPU (the fused pre-indexer): group compression into the
// compressed cache, the ring commit and the Q path for every row, in one kernel launch, bit for
// bit the canonical arithmetic of SPEC 6. Host header: device pointers in, nothing read on the host.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "qsa/status.hpp"
#include "qsa/step_types.hpp"

namespace qsa::cuda {

/// The step kernel's two grids. kLatency (decode-sized batches): one-warp blocks that retire on
/// their own, the group members loaded four at once, the k-work blocks first, since the k-work
/// chains end the step. kStreaming (prefill-sized batches): 128-thread blocks, two members at once,
/// the k-work blocks first up to 16384 rows (a few waves) and spread among the Q blocks, which
/// stream, beyond. kAuto: latency_grid_takes()
/// (qsa/cuda/kernel_path.hpp). kLatency exists for the fast layout and D <= 256; elsewhere the
/// kernel runs kStreaming.
enum class StepGrid { kAuto, kLatency, kStreaming };

/// One step of one layer, on the device. Every pointer is device memory owned by the caller.
/// Element strides; bf16 values are their 16-bit patterns.
struct StepUpdateDeviceArgs {
  // The batch (shared with the metadata kernel's inputs).
  const int32_t* query_start_loc = nullptr;      // [num_requests + 1]
  const int32_t* seq_lens = nullptr;             // [num_requests]
  const int64_t* common_slot_mapping = nullptr;  // [>= num_tokens]
  const int32_t* block_table = nullptr;          // compressed group, element (r, c) at r * row_stride + c * col_stride
  int64_t block_table_row_stride = 0;
  int64_t block_table_col_stride = 1;
  int32_t block_table_cols = 0;               // W, may be 0
  const int32_t* ring_block_table = nullptr;  // ring group: column 0 is the request's ring block
  int64_t ring_block_table_row_stride = 0;
  int64_t ring_block_table_col_stride = 1;
  int32_t ring_block_table_cols = 0;
  const int32_t* k_work_metadata = nullptr;  // [K][2] from launch_metadata (compressed kind), K = (N + (C-1)·NR) / C
  int32_t num_tokens = 0;                    // N
  int32_t num_requests = 0;                  // NR

  // The configuration (qsa::StepConfig).
  int32_t compress_ratio = 0;      // C
  int32_t storage_block_size = 0;  // S
  int32_t ring_capacity = 0;       // R
  int32_t head_dim = 0;            // D: 32, 64, 128, 256 or 512
  int32_t rotary_dim = 0;          // rd, even, <= D
  int32_t num_heads = 0;           // HQ
  float eps = 0;
  int32_t mrope_sections[3] = {0, 0, 0};
  bool mrope = false;           // the sections apply
  bool ring_positions = false;  // ring rows carry (t, h, w) after the key
  StoreDtype store_dtype = StoreDtype::kBf16;
  int32_t max_position = 0;

  // Tensors.
  const uint16_t* keys = nullptr;      // [N, D]
  const uint16_t* queries = nullptr;   // [N, HQ, D]
  const int64_t* positions = nullptr;  // [position_axes, N]
  int32_t position_axes = 1;           // 1 or 3
  const uint16_t* cos_sin = nullptr;   // [max_position, rd]
  const uint16_t* w_k = nullptr;       // [D]
  const uint16_t* w_q = nullptr;       // [D]

  // Caches, updated in place (CacheLayout's geometry, strides in elements).
  uint16_t* ring = nullptr;  // bf16 rows of D (or P + 12) elements
  int64_t ring_num_blocks = 0;
  int64_t ring_block_stride = 0;
  int64_t ring_row_stride = 0;
  void* compressed = nullptr;  // rows of D elements in the store dtype
  int64_t compressed_num_blocks = 0;
  int64_t compressed_block_stride = 0;
  int64_t compressed_row_stride = 0;

  // Outputs.
  void* q_out = nullptr;      // [N, HQ, D] in the store dtype
  int32_t* status = nullptr;  // one word, zeroed by the caller; bit 0: position-out-of-range

  // The launch. With programmatic dependent launch (sm_90) the kernel may start before the
  // previous kernel on the stream has ended: it reads cos_sin, w_k and w_q (per-configuration
  // constants, never written by the kernel just before it) before it waits for that kernel, and
  // everything else after. Off: a plain stream-ordered launch.
  bool programmatic_launch = false;
  // Which grid runs the kernel (docs/cuda-step-update.md, "Two grids"); the same arithmetic either way.
  StepGrid grid = StepGrid::kAuto;

  /// Copies the configuration from a host StepConfig (validated by qsa::validate_step()).
  void set_config(const StepConfig& config);
  int64_t num_work_rows() const;  // K
};

/// Runs the step update of SPEC 5 in one kernel launch on `stream`.
///
/// Preconditions: the host copies of the inputs passed qsa::validate_step(); k_work_metadata was
/// built by launch_metadata for the compressed kind from the same batch. The launch checks only
/// its host-side arguments (D, rd, null or misaligned pointers) and returns kInvalidInput naming
/// the argument; it reads no device data on the host, allocates nothing and never synchronizes,
/// so it can be captured in a CUDA graph.
/// Work split: one team of lanes per D-wide row (D/8 lanes of 8 elements, 32 lanes for D = 512);
/// Q rows and k-work items (one closing group each; item (j, 0) also commits j's ring suffix after
/// its own reads) are independent teams. Two requests never share a ring block (validate_step's
/// shared-block rule), so no ordering across teams is needed.
/// Determinism: bitwise equal to qsa::reference::step_update (caches, q_out, status) on every valid
/// input: __fmul_rn/__fadd_rn/__fdiv_rn/__fsqrt_rn, the pairwise tree by lane chunks and xor shuffles.
[[nodiscard]] Status launch_step_update(const StepUpdateDeviceArgs& args, cudaStream_t stream, Error* error);

/// The device's SPEC 6 conversions, for exhaustive tests: for every 32-bit pattern b, bf16[i] is
/// the kernel's bf16(float with bits b); e4m3[2i] and e4m3[2i + 1] are the kernel's e4m3 (the pair
/// conversion of its stores) of the bf16 pattern p = b >> 16 and of -p (p ^ 0x8000).
[[nodiscard]] Status convert_on_device(const std::vector<uint32_t>& bits, std::vector<uint16_t>* bf16,
                                       std::vector<uint8_t>* e4m3, Error* error);

}  // namespace qsa::cuda
