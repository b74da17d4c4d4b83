#pragma once
// Detail header (nvcc only): instantiates the shipped kernel templates with a compile-time variant,
// for the planted bugs (planted/) and the benchmarks' tuning variants and baselines (bench/).
// Every variant is launched exactly as the production launcher launches kNoBug, so a planted bug
// differs from the shipped kernel in its planted line only. Link qsa::cuda_kernel_variants.
//
// What it offers:
//  * launch_metadata_variant<kBug>(args, stream, error[, programmatic]):
//    metadata_staged_tiles_kernel<kBug>, planned as launch_metadata plans it (shared memory raised
//    once per variant), plainly or with PDL.
//  * launch_step_variant<kBug, Dims...>(args, stream, error): step_update_row_teams_kernel<D, kBug>
//    for the listed head dims, fast layout only (other inputs: kInvalidInput naming why).
//  * launch_step_tuning<H, MinBlocks, PoolBatch> (kernels/step_update_dispatch.cuh): D = 128 tuning
//    variants of the production kernel, for the benchmarks.
//  * float_to_bf16, bf16_to_e4m3 (kernels/step_update_arithmetic.cuh): the device's SPEC 6
//    conversions, for a baseline kernel that must round as the shipped one does.
//  * launch_kernel, wait_for_previous_grid, allow_next_grid (kernels/programmatic_launch.cuh): a
//    floor kernel launched with PDL as the shipped kernels are.

#include "kernels/metadata_staged_tiles.cuh"
#include "kernels/step_update_arithmetic.cuh"
#include "kernels/step_update_dispatch.cuh"
#include "metadata_plan.hpp"
#include "qsa/cuda/cuda_check.hpp"
#include "qsa/cuda/detail/kernel_variants.hpp"

namespace qsa::cuda::detail {

template <MetadataVariant kBug>
Status launch_metadata_variant(const MetadataDeviceArgs& args, cudaStream_t stream, Error* error,
                               bool programmatic = false) {
  MetadataParams params{};
  MetadataLaunchShape shape;
  if (Status s = plan_metadata_launch(args, {}, &params, &shape, error); s != Status::kOk) return s;
  static const cudaError_t prepared = allow_metadata_shared_memory<kBug>(static_cast<int>(max_metadata_shared_bytes()));
  QSA_CUDA_TRY(prepared, error);
  QSA_CUDA_TRY(launch_metadata_staged_tiles<kBug>(params, shape, stream, programmatic), error);
  return Status::kOk;
}

template <int kBug, int... Dims>
Status launch_step_variant(const StepUpdateDeviceArgs& args, cudaStream_t stream, Error* error) {
  return dispatch_step_update<kBug, /*Generic=*/false, Dims...>(args, stream, error);
}

}  // namespace qsa::cuda::detail
