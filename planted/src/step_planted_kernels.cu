// The planted-bug variants of the step-update kernel (through optimized's detail header), for
// D = 32 (the quick scenarios) and D = 128 (the real configuration), fast layout only, to keep
// nvcc's work small.

#include "qsa/cuda/detail/kernel_variants.cuh"
#include "step_planted.hpp"

namespace qsa::mutants {

Status launch_planted_step_update(cuda::detail::StepBug bug, const cuda::StepUpdateDeviceArgs& args,
                                  cudaStream_t stream, Error* error) {
  using namespace cuda::detail;
  switch (bug) {
    case kCommitBeforeRead:
      return launch_step_variant<kCommitBeforeRead, 32, 128>(args, stream, error);
    case kRingOneRowShort:
      return launch_step_variant<kRingOneRowShort, 32, 128>(args, stream, error);
    case kWrongMropeAxis:
      return launch_step_variant<kWrongMropeAxis, 32, 128>(args, stream, error);
    case kFp8NoSaturation:
      return launch_step_variant<kFp8NoSaturation, 32, 128>(args, stream, error);
    case kRingBlockUnchecked:
      return launch_step_variant<kRingBlockUnchecked, 32, 128>(args, stream, error);
    case kQOutSkipsPadding:
      return launch_step_variant<kQOutSkipsPadding, 32, 128>(args, stream, error);
    case kReversedTree:
      return launch_step_variant<kReversedTree, 32, 128>(args, stream, error);
    case kGroupPositionIgnoresTail:
      return launch_step_variant<kGroupPositionIgnoresTail, 32, 128>(args, stream, error);
    case kSkipsGridWait:
      return launch_step_variant<kSkipsGridWait, 32, 128>(args, stream, error);
    case kNoBug:
      break;
  }
  return launch_step_variant<kNoBug, 32, 128>(args, stream, error);
}

}  // namespace qsa::mutants
