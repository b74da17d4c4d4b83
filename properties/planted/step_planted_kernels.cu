// The planted-bug variants of the step-update kernel, for D = 32 (the quick scenarios) and
// D = 128 (the real configuration), fast layout only, to keep nvcc's work small.

#include "kernels/step_update_dispatch.cuh"
#include "planted/step_planted.hpp"

namespace qsa::testing {

Status launch_planted_step_update(cuda::detail::StepBug bug, const cuda::StepUpdateDeviceArgs& args,
                                  cudaStream_t stream, Error* error) {
  using namespace cuda::detail;
  switch (bug) {
    case kCommitBeforeRead:
      return dispatch_step_update<kCommitBeforeRead, false, 32, 128>(args, stream, error);
    case kRingOneRowShort:
      return dispatch_step_update<kRingOneRowShort, false, 32, 128>(args, stream, error);
    case kWrongMropeAxis:
      return dispatch_step_update<kWrongMropeAxis, false, 32, 128>(args, stream, error);
    case kFp8NoSaturation:
      return dispatch_step_update<kFp8NoSaturation, false, 32, 128>(args, stream, error);
    case kRingBlockUnchecked:
      return dispatch_step_update<kRingBlockUnchecked, false, 32, 128>(args, stream, error);
    case kQOutSkipsPadding:
      return dispatch_step_update<kQOutSkipsPadding, false, 32, 128>(args, stream, error);
    case kReversedTree:
      return dispatch_step_update<kReversedTree, false, 32, 128>(args, stream, error);
    case kGroupPositionIgnoresTail:
      return dispatch_step_update<kGroupPositionIgnoresTail, false, 32, 128>(args, stream, error);
    case kSkipsGridWait:
      return dispatch_step_update<kSkipsGridWait, false, 32, 128>(args, stream, error);
    case kNoBug:
      break;
  }
  return dispatch_step_update<kNoBug, false, 32, 128>(args, stream, error);
}

}  // namespace qsa::testing
