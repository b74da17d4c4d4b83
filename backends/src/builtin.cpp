#include "qsa/backends/builtin.hpp"

#include <memory>

#include "qsa/backends/planted.hpp"
#include "qsa/backends/plugin_backend.hpp"
#include "qsa/backends/worker_backend.hpp"
#include "qsa/reference/reference_backend.hpp"

#ifdef QSA_HAVE_CUDA
#include "qsa/cuda/cuda_backend.hpp"
#include "qsa/cuda/device.hpp"
#endif

namespace qsa::backends {
namespace {

void add_once(BackendRegistry& registry, const std::string& name, const std::string& description,
              BackendFactory factory, bool hidden = false) {
  if (!registry.contains(name)) registry.add(name, description, std::move(factory), hidden);
}

}  // namespace

void register_builtin_backends(BackendRegistry& registry) {
  add_once(registry, "reference", "plain C++ reference implementation of docs/spec.md (the oracle)",
           [] { return std::make_unique<reference::ReferenceBackend>(); });
#ifdef QSA_HAVE_CUDA
  if (!registry.contains("cuda"))
    registry.add_on_devices(
        "cuda",
        "CUDA kernels (optimized/): one-launch metadata and fused step-update kernels, bit-exact with the reference",
        [](int device) {
          auto backend = std::make_unique<cuda::CudaBackend>();
          backend->set_device(device);
          return backend;
        });
#endif
  for (const auto* set :
       {&planted_cpu_bugs(), &planted_cuda_metadata_bugs(), &planted_cuda_step_bugs(), &planted_arithmetic_backends()})
    for (const PlantedBug& bug : *set)
      add_once(
          registry, bug.name, bug.description, [name = bug.name] { return make_planted_backend(name); },
          /*hidden=*/true);
  register_plugin_backends(registry);  // plugin:PATH[#VARIANT], never listed
  register_worker_backends(registry);  // worker:COMMAND, isolated:BACKEND, never listed
}

bool cuda_support_built() {
#ifdef QSA_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

int cuda_device_count() {
#ifdef QSA_HAVE_CUDA
  return cuda::device_count();
#else
  return 0;
#endif
}

}  // namespace qsa::backends
