#pragma once
// The CUDA implementation as a backend: "cuda". Host header.

#include <functional>
#include <memory>
#include <string>

#include "qsa/backend.hpp"
#include "qsa/cuda/metadata.hpp"

namespace qsa::cuda {

/// Launches one metadata build on `stream` (launch_metadata in production; a planted-bug variant
/// in the tests). Must not synchronize: the backend downloads and synchronizes afterwards.
using MetadataLauncher = std::function<Status(const MetadataDeviceArgs& args, cudaStream_t stream, Error* error)>;

/// build_metadata validates the host input with qsa::validate() (returning its status and error
/// unchanged), uploads it into persistent device buffers (grown on demand), poisons the outputs,
/// runs one launch on the backend's own non-blocking stream and downloads the result. The batch
/// split is computed on the host from the same host copies, as vLLM does
/// (split_decodes_and_prefills reads query_start_loc_cpu). step_update is not implemented yet.
class CudaBackend : public Backend {
 public:
  CudaBackend();
  /// A backend named `name` that launches through `launcher` (test variants).
  CudaBackend(std::string name, MetadataLauncher launcher);
  ~CudaBackend() override;

  std::string name() const override { return name_; }
  Status probe(std::string* reason) const override;
  [[nodiscard]] Status build_metadata(const MetadataInput& input, MetadataOutput* output, Error* error) override;

 private:
  struct DeviceState;
  std::string name_;
  MetadataLauncher launcher_;
  std::unique_ptr<DeviceState> device_;
};

/// Registers "cuda" (it reports itself unavailable on a machine without a usable device).
void register_backends(BackendRegistry& registry);

}  // namespace qsa::cuda
