#pragma once
// The CUDA implementation as a backend: "cuda". Host header.

#include <functional>
#include <memory>
#include <string>

#include "qsa/backend_interface.hpp"
#include "qsa/cuda/metadata.hpp"
#include "qsa/cuda/step_update.hpp"

namespace qsa::cuda {

/// Launches one metadata build on `stream` (launch_metadata in production; a planted-bug variant
/// in the tests). Must not synchronize: the backend downloads and synchronizes afterwards.
using MetadataLauncher = std::function<Status(const MetadataDeviceArgs& args, cudaStream_t stream, Error* error)>;

/// Launches one step update on `stream` (launch_step_update in production; a planted-bug variant
/// in the tests). Must not synchronize.
using StepLauncher = std::function<Status(const StepUpdateDeviceArgs& args, cudaStream_t stream, Error* error)>;

/// Launches the metadata build that precedes each step update on `stream`, plainly or with PDL as
/// `config` says (launch_metadata in production; the planted PDL chain's kernel holds its writes
/// back). Must not synchronize.
using ChainMetadataLauncher = std::function<Status(const MetadataDeviceArgs& args, cudaStream_t stream, Error* error,
                                                   const MetadataLaunchConfig& config)>;

/// build_metadata validates the host input with qsa::validate() (returning its status and error
/// unchanged), uploads it into persistent device buffers (grown on demand), poisons the outputs,
/// runs one launch on the backend's own non-blocking stream and downloads the result. The batch
/// split is computed on the host from the same host copies, as vLLM does
/// (split_decodes_and_prefills reads query_start_loc_cpu). step_update validates with
/// qsa::validate_step(), uploads the step and what the host changed in its caches (they stay on the
/// device between steps), poisons the metadata outputs, then runs the metadata kernel (the
/// compressed group's k-work) and the fused step-update launch back to back, and downloads q_out,
/// the status and the parts of the caches the step changed (anywhere in them, found on the device).
class CudaBackend : public Backend {
 public:
  CudaBackend();
  /// A backend named `name` that launches through these launchers (test variants).
  CudaBackend(std::string name, MetadataLauncher launcher, StepLauncher step_launcher = launch_step_update);
  ~CudaBackend() override;

  /// Launches the metadata kernel and the step update of step_update() with programmatic dependent
  /// launch (the step kernel may start while the metadata kernel ends); plain launches by default.
  void set_programmatic_launch(bool on) { programmatic_launch_ = on; }
  /// The step kernel's grid (StepGrid::kAuto by default): tests run both grids on the same inputs.
  void set_step_grid(StepGrid grid) { step_grid_ = grid; }
  /// The metadata launch of step_update() (launch_metadata by default).
  void set_chain_metadata_launcher(ChainMetadataLauncher launcher) { chain_metadata_launcher_ = std::move(launcher); }

  /// The CUDA device this instance runs on (default 0): every call makes it current on the
  /// calling thread first, and the stream and buffers live there (`qsacheck check --devices`).
  void set_device(int device) { device_ordinal_ = device; }
  int device() const { return device_ordinal_; }

  std::string name() const override { return name_; }
  Status probe(std::string* reason) const override;
  [[nodiscard]] Status build_metadata(const MetadataInput& input, MetadataOutput* output, Error* error) override;
  [[nodiscard]] Status step_update(const StepInput& input, StepCaches* caches, StepOutput* output,
                                   Error* error) override;

 private:
  [[nodiscard]] Status prepare(const MetadataInput& input, Error* error);
  struct DeviceState;
  std::string name_;
  MetadataLauncher launcher_;
  StepLauncher step_launcher_;
  ChainMetadataLauncher chain_metadata_launcher_ = launch_metadata;
  bool programmatic_launch_ = false;
  StepGrid step_grid_ = StepGrid::kAuto;
  int device_ordinal_ = 0;
  std::unique_ptr<DeviceState> device_;
};

}  // namespace qsa::cuda
