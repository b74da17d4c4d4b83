#pragma once
// The CUDA backend's step-update kernel path for a simulated scenario, without a GPU: the kernel's
// own rule (qsa/cuda/kernel_path.hpp) on the caches a scenario run hands every backend (dense:
// traces::ring_cache_layout, compressed_cache_layout; the CUDA backend's buffers are cudaMalloc'd,
// so aligned).
// `qsacheck check` counts steps per path and per grid with it.

#include <string>
#include <vector>

#include "qsa/traces/scenario.hpp"

namespace qsa::backends {

/// "D128 fast bf16", "D32 generic fp8_e4m3", ...; "D48 (not built)" for a D the kernel lacks.
std::string cuda_step_kernel_path(const traces::ScenarioConfig& config);

/// Every path of the shipped kernel, in order.
std::vector<std::string> cuda_step_kernel_paths();

/// What the grid of a scenario's steps depends on besides their row counts: its D and layout
/// (cuda_grid_choice builds the step config, its RoPE table included: once per scenario).
struct CudaGridChoice {
  bool built = false;  // the kernel has this D
  bool fast = false;
  int64_t head_dim = 0;
};
CudaGridChoice cuda_grid_choice(const traces::ScenarioConfig& config);

/// The grid that runs this step ("latency" or "streaming", qsa/cuda/kernel_path.hpp; "" for a D
/// the kernel lacks); N counts the step's rows and its padding rows.
std::string cuda_step_grid(const CudaGridChoice& choice, const traces::StepRecord& step);

/// Both grids, in order.
std::vector<std::string> cuda_step_grids();

}  // namespace qsa::backends
