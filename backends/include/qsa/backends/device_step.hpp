#pragma once
// A backend's step update with its inputs already on the GPU, enqueued on a caller's CUDA stream
// without synchronizing: what `qsacheck bench` captures in a CUDA graph and times. The built-in
// "cuda" backend has one; so does a CUDA plugin that declares QSA_PLUGIN_FEATURE_GRAPH_CAPTURABLE.
//
// The inputs are uploaded in `sets` copies of the streaming tensors (queries, keys, positions,
// q_out), so a graph that cycles through the sets reads more than the L2 cache holds; the caches,
// the block tables, the RoPE table and the weights are shared by every set, as in vLLM.

#include <cstdint>
#include <memory>

#include "qsa/backend_interface.hpp"
#include "qsa/status.hpp"
#include "qsa/step_types.hpp"

namespace qsa::backends {

class DeviceStep {
 public:
  virtual ~DeviceStep() = default;
  [[nodiscard]] virtual int64_t sets() const = 0;
  /// Enqueues one step update on input set `set` (0 <= set < sets()) on `stream` (a CUstream, the
  /// same handle as a cudaStream_t). Never synchronizes, so it may be captured in a graph.
  [[nodiscard]] virtual Status enqueue(void* stream, int64_t set, Error* error) = 0;
};

/// Uploads a validated step for `backend` (made by the registry; it must outlive the result).
/// kNotImplemented with rule "not-timeable" and the reason when the backend has no device step:
/// the reference and other host backends, a plugin on the host or one that does not declare
/// graph capture, a build without CUDA.
[[nodiscard]] Status prepare_device_step(Backend& backend, const StepInput& input, const StepCaches& caches,
                                         int64_t sets, std::unique_ptr<DeviceStep>* out, Error* error);

}  // namespace qsa::backends
