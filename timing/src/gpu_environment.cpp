#include "qsa/timing/gpu_environment.hpp"

#ifdef QSA_HAVE_CUDA
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#endif

namespace qsa::timing {

#ifdef QSA_HAVE_CUDA
namespace {

// The few NVML calls used, bound by name from libnvidia-ml.so.1 (installed with the driver).
struct Nvml {
  int (*init)();
  int (*device_by_index)(unsigned, void**);
  int (*clock_info)(void*, int, unsigned*);
  int (*driver_version)(char*, unsigned);
};

const Nvml* nvml() {
  static const Nvml* loaded = []() -> const Nvml* {
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) return nullptr;
    static Nvml n;
    n.init = reinterpret_cast<int (*)()>(dlsym(lib, "nvmlInit_v2"));
    n.device_by_index = reinterpret_cast<int (*)(unsigned, void**)>(dlsym(lib, "nvmlDeviceGetHandleByIndex_v2"));
    n.clock_info = reinterpret_cast<int (*)(void*, int, unsigned*)>(dlsym(lib, "nvmlDeviceGetClockInfo"));
    n.driver_version = reinterpret_cast<int (*)(char*, unsigned)>(dlsym(lib, "nvmlSystemGetDriverVersion"));
    if (!n.init || !n.device_by_index || !n.clock_info || !n.driver_version || n.init() != 0) return nullptr;
    return &n;
  }();
  return loaded;
}

constexpr int kNvmlClockSm = 1;   // NVML_CLOCK_SM
constexpr int kNvmlClockMem = 2;  // NVML_CLOCK_MEM

std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

}  // namespace

bool gpu_available(std::string* reason) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    cudaGetLastError();
    *reason = err != cudaSuccess ? std::string("no usable CUDA device: ") + cudaGetErrorString(err)
                                 : "no CUDA device on this machine";
    return false;
  }
  return true;
}

void read_gpu_clocks(int* sm_clock_mhz, int* mem_clock_mhz) {
  *sm_clock_mhz = *mem_clock_mhz = -1;
  const Nvml* n = nvml();
  void* device = nullptr;
  if (n == nullptr || n->device_by_index(0, &device) != 0) return;
  unsigned mhz = 0;
  if (n->clock_info(device, kNvmlClockSm, &mhz) == 0) *sm_clock_mhz = static_cast<int>(mhz);
  if (n->clock_info(device, kNvmlClockMem, &mhz) == 0) *mem_clock_mhz = static_cast<int>(mhz);
}

GpuEnvironment read_gpu_environment() {
  GpuEnvironment env;
  cudaDeviceProp props{};
  if (cudaGetDeviceProperties(&props, 0) == cudaSuccess) {
    env.name = props.name;
    env.sm_count = props.multiProcessorCount;
  }
  int runtime = 0, driver = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) env.cuda_version = version_text(runtime);
  char text[96] = {};
  if (const Nvml* n = nvml(); n != nullptr && n->driver_version(text, sizeof text) == 0)
    env.driver = text;
  else if (cudaDriverGetVersion(&driver) == cudaSuccess)
    env.driver = "supports CUDA " + version_text(driver);
  read_gpu_clocks(&env.sm_clock_mhz, &env.mem_clock_mhz);
  return env;
}

#else

bool gpu_available(std::string* reason) {
  *reason = "this qsacheck was built without CUDA (configure with QSA_ENABLE_CUDA=ON and nvcc on the PATH)";
  return false;
}
GpuEnvironment read_gpu_environment() { return {}; }
void read_gpu_clocks(int* sm_clock_mhz, int* mem_clock_mhz) { *sm_clock_mhz = *mem_clock_mhz = -1; }

#endif

}  // namespace qsa::timing
