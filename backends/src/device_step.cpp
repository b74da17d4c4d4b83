#include "qsa/backends/device_step.hpp"

#include "qsa/backends/plugin_backend.hpp"

#ifdef QSA_HAVE_CUDA
#include "qsa/backends/cuda_device_step.hpp"
#endif

namespace qsa::backends {

Status prepare_device_step(Backend& backend, const StepInput& input, const StepCaches& caches, int64_t sets,
                           std::unique_ptr<DeviceStep>* out, Error* error) {
  if (auto* plugin = dynamic_cast<PluginBackend*>(&backend))
    return plugin->prepare_device_step(input, caches, sets, out, error);
#ifdef QSA_HAVE_CUDA
  // By name: the planted CUDA variants are CudaBackends too, but they exist to be caught, not timed.
  if (backend.name() == "cuda") {
    std::unique_ptr<CudaDeviceStep> step;
    if (Status s = CudaDeviceStep::create(input, caches, sets, cuda::launch_step_update, &step, error);
        s != Status::kOk)
      return s;
    *out = std::move(step);
    return Status::kOk;
  }
#endif
  *error = Error{"backend", -1, "not-timeable",
                 backend.name() +
                     " has no step update on the GPU to time (timed: \"cuda\" and CUDA plugins that "
                     "declare QSA_PLUGIN_FEATURE_GRAPH_CAPTURABLE)"};
  return Status::kNotImplemented;
}

}  // namespace qsa::backends
