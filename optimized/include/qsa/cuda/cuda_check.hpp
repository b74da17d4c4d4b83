#pragma once
// The one mapping from a CUDA runtime error to a qsa::Status (STYLE: "CUDA errors map to a status
// through one macro"). Host header: includes the CUDA runtime API, no device code.

#include <cuda_runtime_api.h>

#include "qsa/status.hpp"

namespace qsa::cuda {

/// Fills *error (when non-null) with field "cuda", index -1, rule "device-error" and a message
/// naming the failed call and CUDA's error name and text; returns kDeviceError. Clears the
/// runtime's last-error slot so a non-sticky error does not leak into the next call.
Status device_error(cudaError_t code, const char* call, Error* error);

}  // namespace qsa::cuda

/// Evaluates `call` (a cudaError_t expression); on failure returns device_error(...) from the
/// enclosing function, which must return qsa::Status.
#define QSA_CUDA_TRY(call, error)                                                                        \
  do {                                                                                                   \
    const cudaError_t qsa_cuda_code_ = (call);                                                           \
    if (qsa_cuda_code_ != cudaSuccess) return ::qsa::cuda::device_error(qsa_cuda_code_, #call, (error)); \
  } while (0)
