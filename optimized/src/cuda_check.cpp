#include "qsa/cuda/cuda_check.hpp"

#include <string>

namespace qsa::cuda {

Status device_error(cudaError_t code, const char* call, Error* error) {
  cudaGetLastError();
  if (error != nullptr)
    *error = Error{"cuda", -1, "device-error",
                   std::string(call) + " failed: " + cudaGetErrorName(code) + ": " + cudaGetErrorString(code)};
  return Status::kDeviceError;
}

}  // namespace qsa::cuda
