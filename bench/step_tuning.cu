// Tuning variants of the step-update kernel for the benchmark (D = 128, fast layout): heads per
// pass of the Q path and the minimum resident blocks per SM (a register cap).

#include "kernels/step_update_dispatch.cuh"
#include "step_tuning.hpp"

namespace qsa::bench {

const std::vector<StepTuning>& step_tunings() {
  static const std::vector<StepTuning> tunings = {
      {"heads_per_pass:4/min_blocks:1", cuda::detail::launch_step_tuning<4, 1>},
      {"heads_per_pass:2/min_blocks:1", cuda::detail::launch_step_tuning<2, 1>},
      {"heads_per_pass:2/min_blocks:6", cuda::detail::launch_step_tuning<2, 6>},
      {"heads_per_pass:1/min_blocks:8", cuda::detail::launch_step_tuning<1, 8>},
      {"heads_per_pass:4/min_blocks:4", cuda::detail::launch_step_tuning<4, 4>},
  };
  return tunings;
}

}  // namespace qsa::bench
