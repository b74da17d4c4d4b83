// Tuning variants of the step-update kernel for the benchmark (D = 128, fast layout): heads per
// pass of the Q path, the minimum resident blocks per SM (a register cap), the group members
// loaded at once, threads per block, the order of item and Q blocks, and when phase B is loaded.
// Earlier rounds' variants and their figures: docs/cuda-step-update.md.

#include "qsa/cuda/detail/kernel_variants.cuh"
#include "step_tuning.hpp"

namespace qsa::bench {

const std::vector<StepTuning>& step_tunings() {
  constexpr bool kEarly = cuda::detail::kLatencyEarlyRingLoads;
  static const std::vector<StepTuning> tunings = {
      // The production kernel picks its grid, and the streaming grid its item order, by the row
      // count; these run one grid and order on every shape. Rounds 3, 5 and 6 measured more
      // (docs/cuda-performance-log.md).
      {"grid:streaming", cuda::detail::launch_step_tuning<2, 8, 2>},
      {"grid:streaming/min_blocks:6", cuda::detail::launch_step_tuning<2, 6, 2>},  // rounds 1 to 4
      {"grid:latency", cuda::detail::launch_step_tuning<2, 20, 4, true, 32, true, true, kEarly>},
      {"grid:latency/min_blocks:16", cuda::detail::launch_step_tuning<2, 16, 4, true, 32, true, true, kEarly>},
      {"grid:streaming/items_first", cuda::detail::launch_step_tuning<2, 8, 2, true, 128, true>},
      // The Q path's contiguous layout where the halves layout would run (round 10).
      {"grid:streaming/contiguous", cuda::detail::launch_step_tuning<2, 8, 2, true, 128, false, false>},
      {"grid:latency/contiguous", cuda::detail::launch_step_tuning<2, 20, 4, true, 32, true, false, kEarly>},
      // The latency grid with phase B's first batch loaded after phase A, as before round 13.
      {"grid:latency/late_ring_loads", cuda::detail::launch_step_tuning<2, 20, 4, true, 32, true>},
      // Four members per load on the streaming grid: no spill at 64 registers now; round 13
      // measured it faster at mixed and 16 x 4096 with the items spread. Not adopted yet.
      {"grid:streaming/members:4", cuda::detail::launch_step_tuning<2, 8, 4>},
      {"grid:streaming/items_first/members:4", cuda::detail::launch_step_tuning<2, 8, 4, true, 128, true>},
  };
  return tunings;
}

Status launch_step_version5(const cuda::StepUpdateDeviceArgs& args, cudaStream_t stream, Error* error) {
  cuda::StepUpdateDeviceArgs plain = args;
  plain.programmatic_launch = false;
  // Version 5's parameters: two heads a pass, six blocks per SM, two members a load, phase B loaded late.
  return cuda::detail::launch_step_tuning<2, 6, 2, /*GridControl=*/false, 128, false, /*HalvesWhenRdIsHalf=*/false,
                                          /*EarlyRingLoads=*/false>(plain, stream, error);
}

}  // namespace qsa::bench
