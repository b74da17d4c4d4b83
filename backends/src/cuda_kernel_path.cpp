#include "qsa/backends/cuda_kernel_path.hpp"

#include <algorithm>

#include "qsa/cuda/kernel_path.hpp"
#include "qsa/traces/scenario_caches.hpp"

namespace qsa::backends {

std::string cuda_step_kernel_path(const traces::ScenarioConfig& config) {
  const auto& dims = cuda::kernel_head_dims();
  if (std::find(dims.begin(), dims.end(), config.head_dim) == dims.end())
    return "D" + std::to_string(config.head_dim) + " (not built)";
  return cuda::step_kernel_path(config.step_config(), traces::ring_cache_layout(config),
                                traces::compressed_cache_layout(config))
      .name();
}

std::vector<std::string> cuda_step_kernel_paths() { return cuda::all_step_kernel_paths(); }

CudaGridChoice cuda_grid_choice(const traces::ScenarioConfig& config) {
  const auto& dims = cuda::kernel_head_dims();
  CudaGridChoice choice;
  choice.built = std::find(dims.begin(), dims.end(), config.head_dim) != dims.end();
  choice.head_dim = config.head_dim;
  choice.fast = cuda::step_kernel_path(config.step_config(), traces::ring_cache_layout(config),
                                       traces::compressed_cache_layout(config))
                    .fast;
  return choice;
}

std::string cuda_step_grid(const CudaGridChoice& choice, const traces::StepRecord& step) {
  if (!choice.built) return "";
  int64_t rows = step.padding_tokens;
  for (const traces::ChunkRecord& chunk : step.chunks) rows += chunk.length;
  return cuda::step_grid_names()[cuda::latency_grid_takes(choice.head_dim, choice.fast, rows) ? 0 : 1];
}

std::vector<std::string> cuda_step_grids() { return cuda::step_grid_names(); }

}  // namespace qsa::backends
