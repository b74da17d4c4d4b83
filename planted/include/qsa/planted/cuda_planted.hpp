#pragma once
// The planted CUDA kernels: the shipped metadata and step-update kernel templates instantiated
// with one realistic bug each (through optimized's detail header qsa/cuda/detail/kernel_variants.cuh),
// wrapped as CUDA backends. The GPU differential suites must catch every one of them.

#include <memory>
#include <string>
#include <vector>

#include "qsa/backend_interface.hpp"

namespace qsa::planted {

struct PlantedKernel {
  std::string name;         // the backend name, e.g. "cuda-planted-column-bound-off-by-one"
  std::string description;  // what the bug does, in one line
  std::string needs;        // the scenario feature that shows it: "", "mrope", "fp8", "ring-block-past-cache", ...
};

/// The metadata-kernel variants ("cuda-planted-<bug>"): the production step update beside them.
const std::vector<PlantedKernel>& planted_metadata_kernels();

/// The step-kernel variants ("cuda-planted-step-<bug>"): D = 32 and 128, fast layout only.
const std::vector<PlantedKernel>& planted_step_kernels();

/// The CUDA backend of a planted kernel by name, or of "cuda-pdl-behind-held-metadata" (the
/// shipped kernels with PDL, the metadata kernel holding its writes back: the control of the
/// skips-grid-wait variant); nullptr when the name is none of them.
std::unique_ptr<Backend> make_planted_kernel_backend(const std::string& name);

}  // namespace qsa::planted
