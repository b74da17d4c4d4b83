#include "qsa/traces/backends.hpp"

#include "qsa/reference/backend.hpp"

namespace qsa::traces {

void register_builtin_backends(BackendRegistry& registry) {
  if (!registry.contains("reference")) reference::register_backend(registry);
  // The CUDA backend registers here once its metadata kernel exists (issue: CUDA metadata kernel).
}

bool cuda_support_built() {
#ifdef QSA_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

}  // namespace qsa::traces
