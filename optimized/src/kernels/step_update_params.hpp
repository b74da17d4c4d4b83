#pragma once
// The kernel-side copy of StepUpdateDeviceArgs (passed by value), with the derived launch facts.
// Host and device code include it; no CUDA-only types.

#include <cstdint>

#include "kernels/invariant_divider.hpp"

namespace qsa::cuda::detail {

inline constexpr int kStepThreads = 128;
inline constexpr int kDefaultHeadsPerPass = 2;  // Q-path heads whose loads and shuffles interleave
// The streaming grid's fast layout: at most 64 registers, 32 warps per SM (more resident Q rows
// stream faster: 2-7 % at prefill against 6 blocks; 9 blocks would spill).
inline constexpr int kDefaultMinBlocks = 8;
// The generic layout (element by element): at most 80 registers, 24 warps per SM.
inline constexpr int kGenericMinBlocks = 6;
// Group members loaded at once by the generic layout (and the tuning instantiations' default); the fast
// layout's grids load four (kStreamingPoolBatch, kLatencyPoolBatch in step_update_dispatch.cuh).
inline constexpr int kDefaultPoolBatch = 2;

struct StepParams {
  const int32_t* query_start_loc;
  const int32_t* seq_lens;
  const int64_t* common_slot_mapping;
  const int32_t* block_table;
  int64_t block_table_row_stride;
  int64_t block_table_col_stride;
  int32_t block_table_cols;
  const int32_t* ring_block_table;
  int64_t ring_block_table_row_stride;
  int32_t ring_block_table_cols;
  const int32_t* k_work_metadata;  // [num_work_rows][2]
  int64_t num_work_rows;           // K
  int32_t num_tokens;
  int32_t num_requests;

  int32_t compress_ratio;
  int32_t storage_block_size;
  int32_t ring_capacity;
  int32_t rotary_dim;
  int32_t num_heads;
  float eps;
  int32_t mrope_sections[3];
  bool mrope;
  bool ring_positions;
  bool fp8;
  int32_t max_position;
  int32_t ring_tail_offset;  // P = 4·ceil(D/4): element offset of the (t, h, w) tail

  const uint16_t* keys;
  const uint16_t* queries;
  const int64_t* positions;
  int32_t position_axes;
  const uint16_t* cos_sin;
  const uint16_t* w_k;
  const uint16_t* w_q;

  uint16_t* ring;
  int64_t ring_num_blocks;
  int64_t ring_block_stride;
  int64_t ring_row_stride;
  void* compressed;
  int64_t compressed_num_blocks;
  int64_t compressed_block_stride;
  int64_t compressed_row_stride;

  void* q_out;
  int32_t* status;

  // Derived at launch (make_step_params, launch_step_kernel).
  float inv_compress_ratio;           // 1 / C when C is a power of two (then x / C == x · (1 / C) exactly), else 0
  InvariantDivider compress_divider;  // C
  InvariantDivider storage_divider;   // S
  InvariantDivider ring_rows;         // R
  uint32_t lane_axes[32];             // per lane of a team: the MRoPE axis of each element's rotary pair, 2 bits each
  int32_t item_blocks;                // blocks 0, k, 2k, ... (item_blocks of them) run k-work items, the rest Q rows
  bool programmatic_launch;           // launched with programmatic dependent launch (programmatic_launch.cuh)
  InvariantDivider item_stride;       // k = (item_blocks + Q blocks) / item_blocks (1 without items)
};

}  // namespace qsa::cuda::detail
