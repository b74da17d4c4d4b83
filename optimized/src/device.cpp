#include "qsa/cuda/device.hpp"

#include <cuda_runtime_api.h>
#include <unistd.h>

namespace qsa::cuda {

Status probe_device(std::string* reason) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err == cudaSuccess && count == 0) {
    if (reason != nullptr) *reason = "no CUDA device (cudaGetDeviceCount returned 0)";
    return Status::kUnavailable;
  }
  // Without a GPU there is no driver either, and the runtime's words ("driver version is
  // insufficient") would send a user to upgrade a driver that is not there.
  if ((err == cudaErrorInsufficientDriver || err == cudaErrorNoDevice) && access("/dev/nvidiactl", F_OK) != 0) {
    if (reason != nullptr)
      *reason = std::string("no GPU on this machine (no NVIDIA driver is loaded: /dev/nvidiactl is absent; ") +
                cudaGetErrorName(err) + ")";
    cudaGetLastError();
    return Status::kUnavailable;
  }
  if (err == cudaSuccess) err = cudaFree(nullptr);  // forces context creation: catches driver mismatches
  if (err != cudaSuccess) {
    if (reason != nullptr)
      *reason = std::string("CUDA initialisation failed: ") + cudaGetErrorName(err) + ": " + cudaGetErrorString(err);
    cudaGetLastError();  // clear the sticky-free error state for later calls
    return Status::kUnavailable;
  }
  return Status::kOk;
}

int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

std::string device_description() {
  if (probe_device(nullptr) != Status::kOk) return {};
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return {};
  return std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ", " +
         std::to_string(prop.multiProcessorCount) + " SMs)";
}

}  // namespace qsa::cuda
