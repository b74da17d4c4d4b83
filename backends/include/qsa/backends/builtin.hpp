#pragma once
// The backends built into this binary: "reference" always, "cuda" when the CUDA library is built
// (it reports itself unavailable on a machine without a device), and the planted bugs, hidden
// (qsa/backends/planted.hpp), and the "plugin:" family (qsa/backends/plugin_backend.hpp).
// BackendRegistry::global() registers them on first use.

#include "qsa/backends/registry.hpp"

namespace qsa::backends {

/// Registers every built-in backend into `registry` (names already there are left alone).
void register_builtin_backends(BackendRegistry& registry);

/// Whether this build includes the CUDA backend.
bool cuda_support_built();

/// CUDA devices on this machine (0 without CUDA support, a driver or a device).
int cuda_device_count();

}  // namespace qsa::backends
