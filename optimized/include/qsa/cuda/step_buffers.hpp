#pragma once
// Device copies of one step update's inputs, caches and outputs for the CUDA backend: uploaded
// from the host types, reused (grown on demand) across steps. The batch, the compressed block
// table and k-work live in MetadataBuffers (the metadata kernel builds k-work there). Host header.

#include <cuda_runtime_api.h>

#include <memory>

#include "qsa/cuda/metadata.hpp"
#include "qsa/cuda/step_update.hpp"
#include "qsa/status.hpp"
#include "qsa/step_types.hpp"

namespace qsa::cuda {

class StepBuffers {
 public:
  StepBuffers();
  ~StepBuffers();
  StepBuffers(const StepBuffers&) = delete;
  StepBuffers& operator=(const StepBuffers&) = delete;

  /// Copies a validated step (validate_step() == kOk) to the device on `stream` and brings the
  /// resident caches up to `caches` (their journal's edits, or whole; cache_mirror.hpp), poisons
  /// q_out with 0xA5 and zeroes the status word; fills `args` from these buffers and from
  /// `metadata` (the compressed group's uploaded batch and its k-work).
  [[nodiscard]] Status upload(const StepInput& input, const StepCaches& caches, const MetadataDeviceArgs& metadata,
                              cudaStream_t stream, StepUpdateDeviceArgs* args, Error* error);

  /// Copies q_out, the status and every part of the caches the step changed back (the host's caches
  /// then equal the device's; kInternalError "write-past-cache" when the slack after a cache
  /// changed) and synchronizes `stream`, not the device.
  [[nodiscard]] Status download(const StepUpdateDeviceArgs& args, cudaStream_t stream, StepCaches* caches,
                                StepOutput* output, Error* error);

 private:
  struct Arrays;
  std::unique_ptr<Arrays> arrays_;
};

}  // namespace qsa::cuda
