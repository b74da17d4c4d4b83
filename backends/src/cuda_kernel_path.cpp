#include "qsa/backends/cuda_kernel_path.hpp"

#include <algorithm>

#include "qsa/cuda/kernel_path.hpp"
#include "qsa/traces/scenario_runner.hpp"

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

}  // namespace qsa::backends
