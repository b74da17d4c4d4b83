#include "qsa/traces/backends.hpp"

#include "qsa/reference/backend.hpp"

#ifdef QSA_HAVE_CUDA
#include "qsa/cuda/backend.hpp"
#endif

namespace qsa::traces {

void register_builtin_backends(BackendRegistry& registry) {
  if (!registry.contains("reference")) reference::register_backend(registry);
#ifdef QSA_HAVE_CUDA
  if (!registry.contains("cuda")) cuda::register_backends(registry);
#endif
}

bool cuda_support_built() {
#ifdef QSA_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

}  // namespace qsa::traces
