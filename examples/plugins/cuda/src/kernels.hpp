#pragma once
// Launchers of the example CUDA plugin. Every pointer is device memory on the instance's device;
// work is queued on `stream` (the CUstream qsacheck passes, used as a cudaStream_t: the runtime
// shares the device's primary context).

#include <cuda_runtime.h>

#include "qsacheck/plugin.h"

namespace example_cuda {

enum class Variant {
  kNone,
  kSplitIgnoresPadding,     // batch split rule 3 only when every q_j equals q_0 (padded requests break it)
  kGroupPositionLastMember  // with ring positions, a group's RoPE position is its last member's, not its first's
};

cudaError_t launch_metadata(const QsaPluginMetadataArgs& args, Variant variant, cudaStream_t stream);
cudaError_t launch_step_update(const QsaPluginStepArgs& args, Variant variant, cudaStream_t stream);

}  // namespace example_cuda
