#pragma once
// Registers every backend built into this binary: the reference always, "cuda" when the CUDA
// library is built (it reports itself unavailable on a machine without a device).

#include "qsa/backend.hpp"

namespace qsa::traces {

void register_builtin_backends(BackendRegistry& registry = BackendRegistry::global());

/// Whether this build includes the CUDA backend.
bool cuda_support_built();

}  // namespace qsa::traces
