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

}  // namespace qsa::bench
