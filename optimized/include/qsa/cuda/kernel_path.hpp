#pragma once
// Which instantiation of the step-update kernel a step takes, as a pure function of its sizes and
// strides: the launcher dispatches on it (adding the buffers' alignment), and a campaign report
// counts steps per path without a GPU. Header-only host code: every build has it, CUDA or not.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "qsa/step_types.hpp"

namespace qsa::cuda {

/// The head dims the shipped kernel is instantiated for (another D is invalid input).
inline const std::vector<int64_t>& kernel_head_dims() {
  static const std::vector<int64_t> dims = {32, 64, 128, 256, 512};
  return dims;
}

/// Elements per lane of the row team for head dim D: min(D / 8, 32) lanes share a row.
inline int64_t lane_elements(int64_t head_dim) {
  const int64_t lanes = head_dim / 8 < 32 ? head_dim / 8 : 32;
  return head_dim / lanes;
}

/// The fast instantiation's conditions on sizes and strides (strides in elements): rd / 2 a
/// power-of-two multiple of the lane chunk and rd a multiple of 8 (vector RoPE), compressed rows
/// and blocks 16-byte multiples (8 for fp8), ring rows and blocks 8-byte multiples. The launcher
/// also needs every buffer aligned the same way (cudaMalloc's are).
inline bool fast_step_strides(int64_t head_dim, int64_t rotary_dim, bool fp8, int64_t compressed_row_stride,
                              int64_t compressed_block_stride, int64_t ring_row_stride, int64_t ring_block_stride) {
  const int64_t elems = lane_elements(head_dim);
  const int64_t hp = rotary_dim / 2;
  const int64_t distance = hp / elems;
  const bool rope = hp % elems == 0 && distance >= 1 && (distance & (distance - 1)) == 0 && rotary_dim % 8 == 0;
  const int64_t bytes = fp8 ? 1 : 2;
  const int64_t align = fp8 ? 8 : 16;
  const bool compressed =
      (compressed_row_stride * bytes) % align == 0 && (compressed_block_stride * bytes) % align == 0;
  const bool ring = (ring_row_stride * 2) % 8 == 0 && (ring_block_stride * 2) % 8 == 0;
  return rope && compressed && ring;
}

/// Whether the fast layout's Q path runs in the halves layout (a lane holds a piece of the rotary
/// half and one of the pass-through half: optimized/src/kernels/step_q_halves.cuh): rd == D/2.
inline bool halves_q_layout(int64_t head_dim, int64_t rotary_dim) { return 2 * rotary_dim == head_dim; }

/// One instantiation and the runtime dtype branch: "D128 fast halves bf16", "D64 fast bf16",
/// "D32 generic fp8_e4m3".
struct StepKernelPath {
  int64_t head_dim = 0;
  bool fast = false;
  bool halves = false;  // fast only
  StoreDtype store_dtype = StoreDtype::kBf16;
  std::string name() const {
    const char* layout = !fast ? " generic " : halves ? " fast halves " : " fast ";
    return "D" + std::to_string(head_dim) + layout + to_string(store_dtype);
  }
};

/// The path of a step with this config on caches of these layouts (aligned buffers).
inline StepKernelPath step_kernel_path(const StepConfig& c, const CacheLayout& ring, const CacheLayout& compressed) {
  const bool fp8 = c.store_dtype == StoreDtype::kFp8E4m3;
  const bool fast = fast_step_strides(c.head_dim, c.rotary_dim, fp8, compressed.row_stride, compressed.block_stride,
                                      ring.row_stride, ring.block_stride);
  return {c.head_dim, fast, fast && halves_q_layout(c.head_dim, c.rotary_dim), c.store_dtype};
}

/// The kernel's two grids (StepGrid, qsa/cuda/step_update.hpp). kAuto runs the latency grid for a
/// step of at most kLatencyGridMaxTokens rows on the fast layout with D <= kLatencyGridMaxHeadDim,
/// the streaming grid for every other step.
inline constexpr int64_t kLatencyGridMaxTokens = 4096;  // upstream's pre-indexer switches tiles there too
inline constexpr int64_t kLatencyGridMaxHeadDim = 256;  // D = 512's chunks leave no registers for it

inline bool latency_grid_takes(int64_t head_dim, bool fast, int64_t num_tokens) {
  return fast && head_dim <= kLatencyGridMaxHeadDim && num_tokens <= kLatencyGridMaxTokens;
}

/// The grids' names in reports, in order.
inline const std::vector<std::string>& step_grid_names() {
  static const std::vector<std::string> names = {"latency", "streaming"};
  return names;
}

/// Every path the shipped kernel has, in order (kernel_head_dims() x fast halves, fast, generic x
/// bf16, fp8).
inline std::vector<std::string> all_step_kernel_paths() {
  std::vector<std::string> names;
  const std::pair<bool, bool> layouts[] = {{true, true}, {true, false}, {false, false}};  // (fast, halves)
  for (int64_t d : kernel_head_dims())
    for (const auto& [fast, halves] : layouts)
      for (StoreDtype dtype : {StoreDtype::kBf16, StoreDtype::kFp8E4m3})
        names.push_back(StepKernelPath{d, fast, halves, dtype}.name());
  return names;
}

}  // namespace qsa::cuda
