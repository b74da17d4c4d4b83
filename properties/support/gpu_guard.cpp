#include "support/gpu_guard.hpp"

#include <cstdlib>
#include <cstring>

#ifdef QSA_HAVE_CUDA
#include "qsa/cuda/device.hpp"
#endif

namespace qsa::testing {

bool gpu_available(std::string* reason) {
#ifdef QSA_HAVE_CUDA
  return cuda::probe_device(reason) == Status::kOk;
#else
  *reason = "this build has no CUDA backend (configure with QSA_ENABLE_CUDA=ON)";
  return false;
#endif
}

bool gpu_required() {
  const char* value = std::getenv("QSA_REQUIRE_GPU");
  return value != nullptr && std::strcmp(value, "1") == 0;
}

}  // namespace qsa::testing
