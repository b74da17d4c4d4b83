#pragma once
// The adapter from a plugin's C table to the Backend interface: `plugin:PATH.so` and
// `plugin:PATH.so#VARIANT` reach every check qsacheck has. Per call it validates the input with
// the contract's validator, checks the plugin's capabilities (an input outside them answers
// kNotImplemented with rule "missing-capability", which campaigns report as not run), allocates
// and poisons every buffer where the plugin asked (host or CUDA), copies inputs in, calls, and
// copies outputs back; the buffers are kept from call to call. A host plugin steps qsacheck's own
// caches in place (no copy). A CUDA plugin's caches stay on the device across steps: only the bytes
// where the host copy differs from what the last step left are uploaded again.

#include <memory>
#include <string>
#include <vector>

#include "qsa/backend_interface.hpp"
#include "qsa/backends/device_step.hpp"
#include "qsa/backends/registry.hpp"
#include "qsa/step_types.hpp"
#include "qsacheck/plugin.h"

namespace qsa::backends {

class PluginLibrary;
class PluginMemory;
class PluginBuffer;
struct PluginMetadataBuffers;
struct PluginBackendBuffers;
struct PluginInstance;

class PluginBackend final : public Backend {
 public:
  /// `name` is "plugin:PATH" or "plugin:PATH#VARIANT". Loading problems are kept for probe().
  explicit PluginBackend(std::string name);
  ~PluginBackend() override;

  std::string name() const override { return name_; }
  /// kUnavailable with the loader's error (path and what is missing) when the plugin cannot run.
  Status probe(std::string* reason) const override;
  [[nodiscard]] Status build_metadata(const MetadataInput& input, MetadataOutput* output, Error* error) override;
  [[nodiscard]] Status step_update(const StepInput& input, StepCaches* caches, StepOutput* output,
                                   Error* error) override;
  std::optional<std::string> excludes(const MetadataInput& input) const override;
  std::optional<std::string> excludes(const StepInput& input, const StepCaches& caches) const override;
  std::optional<std::string> excludes(const StepGeometry& geometry) const override;
  Deviations deviations() const override;
  bool outside_kernel() const override { return true; }

  /// The step update on the device for timing (qsa/backends/device_step.hpp): a CUDA plugin that
  /// declares QSA_PLUGIN_FEATURE_GRAPH_CAPTURABLE; its own metadata of the step (when its step
  /// update reads it) is built and checked once here, outside the timed launches.
  [[nodiscard]] Status prepare_device_step(const StepInput& input, const StepCaches& caches, int64_t sets,
                                           std::unique_ptr<DeviceStep>* out, Error* error);

  /// The loaded library (nullptr when loading failed).
  const PluginLibrary* library() const { return library_.get(); }
  /// The loader's error when probe() fails.
  const Error& load_error() const { return load_error_; }
  /// Seconds spent inside the plugin's build_metadata and step_update (with the device synchronized
  /// after each), since construction: the kernel's own time, which qsacheck reports apart.
  double kernel_seconds() const { return kernel_seconds_; }

 private:
  Status run_metadata(const MetadataInput& input, PluginMetadataBuffers* buffers, Error* error);
  // STEP_USES_METADATA: the plugin's metadata of both groups for its step, also appended to `given`.
  Status step_metadata(const StepInput& input, PluginMetadataBuffers* compressed, PluginMetadataBuffers* ring,
                       QsaPluginStepArgs* args, std::vector<MetadataOutput>* given, Error* error);
  Status sync_cache(const CacheBuffer& host, std::unique_ptr<PluginBuffer>* device, CacheBytes* shadow, uint64_t* token,
                    Error* error);
  Status download_cache(const PluginBuffer& device, CacheBuffer* host, CacheBytes* shadow, uint64_t* token,
                        Error* error);
  Error capability_error(const std::string& missing) const;

  std::string name_;
  std::shared_ptr<PluginLibrary> library_;
  std::unique_ptr<PluginMemory> memory_;
  std::shared_ptr<PluginInstance> instance_;
  Error load_error_;
  double kernel_seconds_ = 0;
  std::unique_ptr<PluginBackendBuffers> buffers_;  // every call's buffers, kept for the next call
  // A CUDA plugin's resident caches (kept across steps) and what the host saw of them after the
  // last step; a host plugin steps qsacheck's caches in place.
  std::unique_ptr<PluginBuffer> ring_;
  std::unique_ptr<PluginBuffer> compressed_;
  CacheBytes ring_shadow_;  // the caches as the device holds them (copies as sparse as the host's)
  CacheBytes compressed_shadow_;
  uint64_t ring_token_ = 0;  // the journal tokens (CacheJournal) the device's caches match; 0: unknown
  uint64_t compressed_token_ = 0;
  std::shared_ptr<const std::vector<Bf16>> cos_sin_source_;  // the shared RoPE table now in cos_sin_
  std::unique_ptr<PluginBuffer> cos_sin_;
};

/// Registers the "plugin:" family: every name "plugin:PATH[#VARIANT]" builds a PluginBackend.
/// register_builtin_backends() calls it, so BackendRegistry::global() always knows the family.
void register_plugin_backends(BackendRegistry& registry);

}  // namespace qsa::backends
