#pragma once
// Detail header (nvcc only): instantiates the shipped kernel templates with another policy, for
// the planted bugs (planted/) and the benchmarks' tuning instantiations and baselines (bench/). A
// policy derives from the shipped kernel's (MetadataPolicy: kernels/metadata_policy.cuh;
// StepPolicy: kernels/step_update_policy.cuh) and replaces the operations it changes
// (docs/decisions.md, "Kernel policies"). Every instantiation is launched exactly as the shipped
// launcher launches the shipped policy. Link qsa::cuda_kernel_variants.
//
// What it offers:
//  * launch_metadata_variant<Policy>(args, stream, error[, programmatic]):
//    metadata_staged_tiles_kernel<Policy>, planned as launch_metadata plans it (shared memory
//    raised once per policy), plainly or with PDL.
//  * launch_step_variant<Policy, Dims...>(args, stream, error): step_update_row_teams_kernel<D,
//    Policy> for the listed head dims, fast layout only (other inputs: kInvalidInput naming why).
//  * launch_step_tuning<H, MinBlocks, PoolBatch> (kernels/step_update_dispatch.cuh): D = 128 tuning
//    instantiations of the shipped kernel, for the benchmarks.
//  * float_to_bf16, bf16_to_e4m3 (kernels/step_update_arithmetic.cuh): the device's SPEC 6
//    conversions, for a baseline kernel that must round as the shipped one does.
//  * launch_kernel, wait_for_previous_grid, allow_next_grid (kernels/programmatic_launch.cuh): a
//    floor kernel launched with PDL as the shipped kernels are.

#include "kernels/metadata_policy.cuh"
#include "kernels/metadata_staged_tiles.cuh"
#include "kernels/step_update_arithmetic.cuh"
#include "kernels/step_update_dispatch.cuh"
#include "kernels/step_update_policy.cuh"
#include "metadata_plan.hpp"
#include "qsa/cuda/cuda_check.hpp"

namespace qsa::cuda::detail {

template <typename Policy>
Status launch_metadata_variant(const MetadataDeviceArgs& args, cudaStream_t stream, Error* error,
                               bool programmatic = false) {
  MetadataParams params{};
  MetadataLaunchShape shape;
  if (Status s = plan_metadata_launch(args, {}, &params, &shape, error); s != Status::kOk) return s;
  static const cudaError_t prepared =
      allow_metadata_shared_memory<Policy>(static_cast<int>(max_metadata_shared_bytes()));
  QSA_CUDA_TRY(prepared, error);
  QSA_CUDA_TRY(launch_metadata_staged_tiles<Policy>(params, shape, stream, programmatic), error);
  return Status::kOk;
}

template <typename Policy, int... Dims>
Status launch_step_variant(const StepUpdateDeviceArgs& args, cudaStream_t stream, Error* error) {
  return dispatch_step_update<Policy, /*Generic=*/false, Dims...>(args, stream, error);
}

}  // namespace qsa::cuda::detail
