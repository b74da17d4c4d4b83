#pragma once
// What a benchmark record says about the GPU it ran on: name, SM count, driver and CUDA versions
// (CUDA runtime), and the SM and memory clocks now (NVML, opened at run time; absent without it).

#include <string>

namespace qsa::timing {

struct GpuEnvironment {
  std::string name;
  int sm_count = 0;
  std::string driver;        // e.g. "580.95.05" (NVML), else the CUDA version the driver supports
  std::string cuda_version;  // the runtime's, e.g. "13.0"
  int sm_clock_mhz = -1;     // -1: unknown (no NVML)
  int mem_clock_mhz = -1;
};

/// True when this build has CUDA and a device is usable; else false with the reason.
bool gpu_available(std::string* reason);

/// The environment of device 0 (call after gpu_available()).
GpuEnvironment read_gpu_environment();

/// The clocks of device 0 now (the end-of-run reading), -1 where unknown.
void read_gpu_clocks(int* sm_clock_mhz, int* mem_clock_mhz);

}  // namespace qsa::timing
