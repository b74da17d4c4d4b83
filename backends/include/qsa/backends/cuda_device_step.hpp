#pragma once
// The device step of the built-in CUDA kernels (qsa/backends/device_step.hpp), open to any launcher
// of the same arguments: `qsacheck bench` times launch_step_update through it, the benchmark binary
// also the unfused baseline and the tuning variants. Only in builds with CUDA. Host header.

#include <cuda_runtime_api.h>

#include <memory>
#include <vector>

#include "qsa/backends/device_step.hpp"
#include "qsa/cuda/cuda_backend.hpp"
#include "qsa/cuda/metadata_buffers.hpp"
#include "qsa/cuda/step_buffers.hpp"

namespace qsa::backends {

class CudaDeviceStep final : public DeviceStep {
 public:
  /// Uploads a validated step in `sets` sets (at least 1) and builds the compressed group's k-work
  /// with the metadata kernel once; every enqueue then calls `launcher` on one set's arguments.
  [[nodiscard]] static Status create(const StepInput& input, const StepCaches& caches, int64_t sets,
                                     cuda::StepLauncher launcher, std::unique_ptr<CudaDeviceStep>* out, Error* error);
  ~CudaDeviceStep() override;

  int64_t sets() const override { return static_cast<int64_t>(args_.size()); }
  Status enqueue(void* stream, int64_t set, Error* error) override;

  /// The arguments of one set (the caches and the shared tensors are set 0's).
  const cuda::StepUpdateDeviceArgs& args(int64_t set) const { return args_.at(static_cast<size_t>(set)); }
  /// The compressed group's uploaded batch and k-work (for chaining the metadata kernel).
  const cuda::MetadataDeviceArgs& metadata_args() const { return metadata_args_; }
  /// Copies set 0's caches, q_out and status back (after an enqueue) and synchronizes `stream`.
  [[nodiscard]] Status download(cudaStream_t stream, StepCaches* caches, StepOutput* output, Error* error);

 private:
  CudaDeviceStep() = default;
  cuda::StepLauncher launcher_;
  std::unique_ptr<cuda::MetadataBuffers> metadata_;
  cuda::MetadataDeviceArgs metadata_args_;
  std::vector<std::unique_ptr<cuda::StepBuffers>> sets_;
  std::vector<cuda::StepUpdateDeviceArgs> args_;
};

}  // namespace qsa::backends
