// The planted-bug instantiations of the step-update kernel: one policy each
// (cuda/step_policies.cuh), through optimized's detail header, for D = 32 (the quick scenarios)
// and D = 128 (the real configuration), fast layout only, to keep nvcc's work small.

#include "cuda/step_policies.cuh"
#include "step_planted.hpp"

namespace qsa::planted {

Status launch_planted_step_update(StepBug bug, const cuda::StepUpdateDeviceArgs& args, cudaStream_t stream,
                                  Error* error) {
  using cuda::detail::launch_step_variant;
  switch (bug) {
    case kCommitBeforeRead:
      return launch_step_variant<CommitBeforeRead, 32, 128>(args, stream, error);
    case kRingOneRowShort:
      return launch_step_variant<RingOneRowShort, 32, 128>(args, stream, error);
    case kWrongMropeAxis:
      return launch_step_variant<WrongMropeAxis, 32, 128>(args, stream, error);
    case kFp8NoSaturation:
      return launch_step_variant<Fp8NoSaturation, 32, 128>(args, stream, error);
    case kRingBlockUnchecked:
      return launch_step_variant<RingBlockUnchecked, 32, 128>(args, stream, error);
    case kQOutSkipsPadding:
      return launch_step_variant<QOutSkipsPadding, 32, 128>(args, stream, error);
    case kReversedTree:
      return launch_step_variant<ReversedTree, 32, 128>(args, stream, error);
    case kGroupPositionIgnoresTail:
      return launch_step_variant<GroupPositionIgnoresTail, 32, 128>(args, stream, error);
    case kSkipsGridWait:
      return launch_step_variant<SkipsGridWait, 32, 128>(args, stream, error);
    case kNoBug:
      break;
  }
  return launch_step_variant<StepPolicy, 32, 128>(args, stream, error);
}

}  // namespace qsa::planted
