#pragma once
// Host side of a step-update launch, shared by the shipped launcher and the launchers of other
// policies: the argument checks and the kernel's parameter block. Host code (g++).

#include "kernels/step_update_params.hpp"
#include "qsa/cuda/step_update.hpp"

namespace qsa::cuda::detail {

/// kInvalidInput naming the first bad host-side argument (D, rd, sizes, null or misaligned pointers).
[[nodiscard]] Status check_step_args(const StepUpdateDeviceArgs& args, Error* error);

/// The kernel's parameter block (item_blocks is set by the launcher).
StepParams make_step_params(const StepUpdateDeviceArgs& args);

/// Whether the fast instantiation applies to head dim D: qsa::cuda::fast_step_strides (the rule a
/// report uses too, qsa/cuda/kernel_path.hpp) and every buffer aligned as those strides are.
bool fast_layout(const StepParams& p, int head_dim);

}  // namespace qsa::cuda::detail
