// Tuning variants of the step-update kernel for the benchmark (D = 128, fast layout): heads per
// pass of the Q path, the minimum resident blocks per SM (a register cap), the group members
// loaded at once, threads per block, where the item blocks sit among the Q blocks, and when
// phase B is loaded.
// Earlier rounds' variants and their figures: docs/cuda-step-update.md.

#include "qsa/cuda/detail/kernel_variants.cuh"
#include "step_tuning.hpp"

namespace qsa::bench {

const std::vector<StepTuning>& step_tunings() {
  constexpr bool kEarly = cuda::detail::kLatencyEarlyRingLoads;
  static const std::vector<StepTuning> tunings = {
      // The production kernel picks its grid by the row count; these run one grid and order on
      // every shape (docs/performance.md lists what was measured and kept).
      {"grid:streaming", cuda::detail::launch_step_tuning<2, 8, 2>},
      {"grid:streaming/min_blocks:6", cuda::detail::launch_step_tuning<2, 6, 2>},  // before eight blocks per SM
      {"grid:latency", cuda::detail::launch_step_tuning<2, 20, 4, true, 32, 0, true, kEarly>},
      {"grid:latency/min_blocks:16", cuda::detail::launch_step_tuning<2, 16, 4, true, 32, 0, true, kEarly>},
      {"grid:streaming/items_first", cuda::detail::launch_step_tuning<2, 8, 2, true, 128, 0>},
      // The Q path's contiguous layout where the halves layout would run (its baseline).
      {"grid:streaming/contiguous", cuda::detail::launch_step_tuning<2, 8, 2, true, 128, 100, false>},
      {"grid:latency/contiguous", cuda::detail::launch_step_tuning<2, 20, 4, true, 32, 0, false, kEarly>},
      // The latency grid with phase B's first batch loaded after phase A (the earlier order).
      {"grid:latency/late_ring_loads", cuda::detail::launch_step_tuning<2, 20, 4, true, 32, 0>},
      // Four members per load on the streaming grid, the items spread: the production launch
      // (docs/cuda-step-update.md, "Latency chains"); items first as a second order.
      {"grid:streaming/members:4", cuda::detail::launch_step_tuning<2, 8, 4>},
      {"grid:streaming/items_first/members:4", cuda::detail::launch_step_tuning<2, 8, 4, true, 128, 0>},
      // The item blocks spread over the grid's first three quarters, half or quarter only, so that
      // the last waves hold no item chain (not adopted: slower at 16 x 4096, no faster elsewhere
      // but 4 x 4096).
      {"grid:streaming/members:4/items_span:75", cuda::detail::launch_step_tuning<2, 8, 4, true, 128, 75>},
      {"grid:streaming/members:4/items_span:50", cuda::detail::launch_step_tuning<2, 8, 4, true, 128, 50>},
      {"grid:streaming/members:4/items_span:25", cuda::detail::launch_step_tuning<2, 8, 4, true, 128, 25>},
  };
  return tunings;
}

Status launch_step_version5(const cuda::StepUpdateDeviceArgs& args, cudaStream_t stream, Error* error) {
  cuda::StepUpdateDeviceArgs plain = args;
  plain.programmatic_launch = false;
  // Version 5's parameters: two heads a pass, six blocks per SM, two members a load, phase B loaded late.
  return cuda::detail::launch_step_tuning<2, 6, 2, /*GridControl=*/false, 128, /*ItemsSpan=*/100,
                                          /*HalvesWhenRdIsHalf=*/false,
                                          /*EarlyRingLoads=*/false>(plain, stream, error);
}

}  // namespace qsa::bench
