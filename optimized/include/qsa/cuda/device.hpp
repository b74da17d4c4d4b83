#pragma once
// Finding out whether a usable CUDA device is present (host code, no CUDA headers).

#include <string>

#include "qsa/status.hpp"

namespace qsa::cuda {

/// kOk when device 0 can be initialised and runs code built for this library's architecture;
/// otherwise kUnavailable with the CUDA error text in *reason ("no CUDA-capable device is
/// detected", "CUDA driver version is insufficient", ...). Never throws, never aborts.
Status probe_device(std::string* reason);

/// The number of CUDA devices (0 without a driver or device); never throws.
int device_count();

/// Name and compute capability of device 0, e.g. "NVIDIA H200 (sm_90, 132 SMs)"; empty if none.
std::string device_description();

}  // namespace qsa::cuda
