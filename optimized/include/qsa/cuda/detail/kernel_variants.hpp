#pragma once
// Detail header (not the host API): the compile-time bug switches of the two shipped kernels,
// for code that instantiates variants of them (planted/). Host-safe: no CUDA headers.
//
// The production kernels take the bug as a template parameter whose "no bug" value is kNoBug
// (MetadataVariant::kNoBug, StepBug kNoBug), the same name the CPU planted bugs use
// (mutants::Bug::kNoBug); that parameter is the kernels' only test hook. Include this through the
// CMake target qsa::cuda_kernel_variants, never optimized/src directly.

#include "kernels/metadata_params.hpp"     // MetadataVariant
#include "kernels/step_update_params.hpp"  // StepBug
