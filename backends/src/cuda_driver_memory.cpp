// PluginMemory on a CUDA device through the driver API, opened with dlopen so that qsacheck needs
// no CUDA toolkit to build and no driver to run host plugins. Only the handful of entry points
// below are used; their types are declared here as the driver's ABI defines them.

#include <dlfcn.h>

#include <string>
#include <type_traits>

#include "plugin_memory.hpp"

namespace qsa::backends {
namespace {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = void*;
using CUstream = void*;

struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t);
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t);
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*cuStreamCreate)(CUstream*, unsigned);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuGetErrorString)(CUresult, const char**);
};

// The driver, loaded once; nullptr with a reason when it is absent.
const Driver* load_driver(std::string* reason) {
  static std::string failure;
  static const Driver* driver = []() -> const Driver* {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      failure = std::string("no CUDA driver: ") + dlerror();
      return nullptr;
    }
    static Driver d;
    bool ok = true;
    auto bind = [&](auto& fn, const char* name) {
      void* p = dlsym(lib, name);
      ok = ok && p != nullptr;
      if (p == nullptr && failure.empty()) failure = std::string("the CUDA driver lacks ") + name;
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
    };
    bind(d.cuInit, "cuInit");
    bind(d.cuDeviceGet, "cuDeviceGet");
    bind(d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    bind(d.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
    bind(d.cuCtxSetCurrent, "cuCtxSetCurrent");
    bind(d.cuMemAlloc, "cuMemAlloc_v2");
    bind(d.cuMemFree, "cuMemFree_v2");
    bind(d.cuMemcpyHtoD, "cuMemcpyHtoD_v2");
    bind(d.cuMemcpyDtoH, "cuMemcpyDtoH_v2");
    bind(d.cuMemsetD8, "cuMemsetD8_v2");
    bind(d.cuStreamCreate, "cuStreamCreate");
    bind(d.cuStreamDestroy, "cuStreamDestroy_v2");
    bind(d.cuStreamSynchronize, "cuStreamSynchronize");
    bind(d.cuGetErrorString, "cuGetErrorString");
    return ok ? &d : nullptr;
  }();
  if (driver == nullptr) *reason = failure;
  return driver;
}

class CudaDriverMemory final : public PluginMemory {
 public:
  CudaDriverMemory(const Driver& d, int ordinal) : d_(d), ordinal_(ordinal) {}
  ~CudaDriverMemory() override {
    if (stream_ != nullptr) d_.cuStreamDestroy(stream_);
    if (context_ != nullptr) d_.cuDevicePrimaryCtxRelease(device_);
  }

  Status open(Error* error) {
    if (Status s = check(d_.cuInit(0), "cuInit", error); s != Status::kOk) return s;
    if (Status s = check(d_.cuDeviceGet(&device_, ordinal_), "cuDeviceGet", error); s != Status::kOk) return s;
    if (Status s = check(d_.cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain", error);
        s != Status::kOk)
      return s;
    if (Status s = current(error); s != Status::kOk) return s;
    return check(d_.cuStreamCreate(&stream_, 0), "cuStreamCreate", error);
  }

  DLDevice device() const override { return DLDevice{kDLCUDA, ordinal_}; }
  void* stream() const override { return stream_; }
  Status allocate(size_t bytes, void** pointer, Error* error) override {
    CUdeviceptr p = 0;
    if (Status s = current(error); s != Status::kOk) return s;
    Status s = check(d_.cuMemAlloc(&p, bytes), "cuMemAlloc", error);
    *pointer = reinterpret_cast<void*>(p);
    return s;
  }
  void release(void* pointer) override { d_.cuMemFree(reinterpret_cast<CUdeviceptr>(pointer)); }
  Status upload(void* destination, const void* source, size_t bytes, Error* error) override {
    if (bytes == 0) return Status::kOk;
    return check(d_.cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(destination), source, bytes), "cuMemcpyHtoD", error);
  }
  Status download(void* destination, const void* source, size_t bytes, Error* error) override {
    if (bytes == 0) return Status::kOk;
    return check(d_.cuMemcpyDtoH(destination, reinterpret_cast<CUdeviceptr>(source), bytes), "cuMemcpyDtoH", error);
  }
  Status fill(void* destination, uint8_t value, size_t bytes, Error* error) override {
    return check(d_.cuMemsetD8(reinterpret_cast<CUdeviceptr>(destination), value, bytes), "cuMemsetD8", error);
  }
  Status synchronize(Error* error) override {
    return check(d_.cuStreamSynchronize(stream_), "cuStreamSynchronize (the plugin's work)", error);
  }

 private:
  Status current(Error* error) { return check(d_.cuCtxSetCurrent(context_), "cuCtxSetCurrent", error); }
  Status check(CUresult r, const char* call, Error* error) const {
    if (r == 0) return Status::kOk;
    const char* text = nullptr;
    d_.cuGetErrorString(r, &text);
    *error = Error{"plugin", -1, "cuda-error",
                   std::string(call) + " returned " + std::to_string(r) + " (" + (text ? text : "unknown") + ")"};
    return Status::kDeviceError;
  }

  const Driver& d_;
  int ordinal_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
};

}  // namespace

std::unique_ptr<PluginMemory> make_cuda_memory(int device_ordinal, Error* error) {
  std::string reason;
  const Driver* driver = load_driver(&reason);
  if (driver == nullptr) {
    *error = Error{"plugin", -1, "no-cuda", reason};
    return nullptr;
  }
  auto memory = std::make_unique<CudaDriverMemory>(*driver, device_ordinal);
  if (memory->open(error) != Status::kOk) return nullptr;
  return memory;
}

}  // namespace qsa::backends
