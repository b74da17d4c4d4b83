#pragma once
// Tuning variants of the step-update kernel, measured beside the default (host header).

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "qsa/cuda/step_update.hpp"

namespace qsa::bench {

struct StepTuning {
  std::string name;
  Status (*launch)(const cuda::StepUpdateDeviceArgs&, cudaStream_t, Error*);
};

const std::vector<StepTuning>& step_tunings();

/// Version 5 of the kernel (docs/cuda-step-update.md): the default tuning without the PDL wait
/// and trigger, launched plainly. Kept to show each round's gain over it (bf16; the fp8 store path
/// is shared with the current kernel).
Status launch_step_version5(const cuda::StepUpdateDeviceArgs& args, cudaStream_t stream, Error* error);

}  // namespace qsa::bench
