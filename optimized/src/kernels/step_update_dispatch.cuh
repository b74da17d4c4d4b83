#pragma once
// Launches step_update_row_teams_kernel<D, Bug> for the head dim of the arguments. The production
// launcher instantiates every D with kNoBug; the planted variants (tests) only the D they use.

#include <cuda_runtime_api.h>

#include "kernels/step_update_row_teams.cuh"
#include "qsa/cuda/cuda_check.hpp"
#include "step_update_args.hpp"

namespace qsa::cuda::detail {

template <int D, int Bug, bool Fast, int H = kDefaultHeadsPerPass, int MinBlocks = kDefaultMinBlocks>
Status launch_step_kernel(StepParams p, cudaStream_t stream, Error* error) {
  constexpr int64_t teams = TeamShape<D>::kTeamsPerBlock;
  const int64_t item_blocks = (p.num_work_rows + teams - 1) / teams;
  const int64_t q_blocks = (p.num_tokens + teams - 1) / teams;  // one team per token row
  if (item_blocks + q_blocks == 0) return Status::kOk;
  if (item_blocks + q_blocks > 2147483647) return invalid(error, "num_tokens", -1, "launch-argument", "the grid would exceed 2^31 - 1 blocks");
  p.item_blocks = static_cast<int32_t>(item_blocks);
  step_update_row_teams_kernel<D, Bug, Fast, H, MinBlocks><<<static_cast<unsigned>(item_blocks + q_blocks), kStepThreads, 0, stream>>>(p);
  QSA_CUDA_TRY(cudaGetLastError(), error);
  return Status::kOk;
}

template <int D, int Bug, bool Generic>
Status launch_for_layout(const StepParams& p, cudaStream_t stream, Error* error) {
  if (fast_layout(p, D)) return launch_step_kernel<D, Bug, true>(p, stream, error);
  if constexpr (Generic) return launch_step_kernel<D, Bug, false>(p, stream, error);
  return invalid(error, "layout", -1, "launch-argument", "this kernel variant is built for the fast layout only (aligned rows, rd/2 a power-of-two multiple of the lane chunk)");
}

/// A tuning variant (benchmarks only): D = 128, the fast layout, H heads per pass, MinBlocks.
template <int H, int MinBlocks>
Status launch_step_tuning(const StepUpdateDeviceArgs& args, cudaStream_t stream, Error* error) {
  if (Status s = check_step_args(args, error); s != Status::kOk) return s;
  const StepParams p = make_step_params(args);
  if (args.head_dim != 128 || !fast_layout(p, 128)) return invalid(error, "head_dim", -1, "launch-argument", "tuning variants need D = 128, fast layout");
  return launch_step_kernel<128, kNoBug, true, H, MinBlocks>(p, stream, error);
}

/// Checks the arguments and launches for their D and layout. `Dims` lists the head dims this
/// variant was built for (another D gives kInvalidInput); `Generic` whether it has the element-
/// by-element instantiation for layouts that are not fast.
template <int Bug, bool Generic, int... Dims>
Status dispatch_step_update(const StepUpdateDeviceArgs& args, cudaStream_t stream, Error* error) {
  if (Status s = check_step_args(args, error); s != Status::kOk) return s;
  const StepParams p = make_step_params(args);
  Status status = invalid(error, "head_dim", -1, "launch-argument", "this kernel variant is not built for D = " + std::to_string(args.head_dim));
  const bool launched = ((args.head_dim == Dims ? (status = launch_for_layout<Dims, Bug, Generic>(p, stream, error), true) : false) || ...);
  (void)launched;
  return status;
}

}  // namespace qsa::cuda::detail
