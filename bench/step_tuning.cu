// Tuning variants of the step-update kernel for the benchmark (D = 128, fast layout): heads per
// pass of the Q path, the minimum resident blocks per SM (a register cap) and the group members
// loaded at once.

#include "qsa/cuda/detail/kernel_variants.cuh"
#include "step_tuning.hpp"

namespace qsa::bench {

const std::vector<StepTuning>& step_tunings() {
  static const std::vector<StepTuning> tunings = {
      {"heads_per_pass:2/min_blocks:6/pool_batch:4", cuda::detail::launch_step_tuning<2, 6, 4>},
      {"heads_per_pass:2/min_blocks:5/pool_batch:4", cuda::detail::launch_step_tuning<2, 5, 4>},
      {"heads_per_pass:2/min_blocks:5/pool_batch:2", cuda::detail::launch_step_tuning<2, 5, 2>},
      {"heads_per_pass:2/min_blocks:8/pool_batch:2", cuda::detail::launch_step_tuning<2, 8, 2>},
      {"heads_per_pass:4/min_blocks:4/pool_batch:4", cuda::detail::launch_step_tuning<4, 4, 4>},
      {"heads_per_pass:1/min_blocks:8/pool_batch:2", cuda::detail::launch_step_tuning<1, 8, 2>},
  };
  return tunings;
}

Status launch_step_version5(const cuda::StepUpdateDeviceArgs& args, cudaStream_t stream, Error* error) {
  cuda::StepUpdateDeviceArgs plain = args;
  plain.programmatic_launch = false;
  return cuda::detail::launch_step_tuning<cuda::detail::kDefaultHeadsPerPass, cuda::detail::kDefaultMinBlocks,
                                          cuda::detail::kDefaultPoolBatch, /*GridControl=*/false>(plain, stream, error);
}

}  // namespace qsa::bench
