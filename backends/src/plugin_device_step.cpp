// The device step of a CUDA plugin (qsa/backends/device_step.hpp): the step's inputs uploaded in
// several sets, the caches and the RoPE table once, and a call of the plugin's step_update per
// enqueue on the caller's stream.

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "plugin_instance.hpp"
#include "plugin_step_args.hpp"
#include "qsa/backends/plugin_backend.hpp"
#include "qsa/backends/plugin_capabilities.hpp"
#include "qsa/backends/plugin_library.hpp"
#include "qsa/validate.hpp"

namespace qsa::backends {
namespace {

class PluginDeviceStep final : public DeviceStep {
 public:
  PluginDeviceStep(const QsaPlugin& table, void* instance) : table_(table), instance_(instance) {}

  int64_t sets() const override { return static_cast<int64_t>(args_.size()); }

  Status enqueue(void* stream, int64_t set, Error* error) override {
    QsaPluginStepArgs args = args_.at(static_cast<size_t>(set));
    args.stream = stream;
    QsaPluginError e{};
    e.index = -1;
    const int32_t code = table_.step_update(instance_, &args, &e);
    if (code == QSA_PLUGIN_OK) return Status::kOk;
    *error = Error{"plugin", -1, "plugin-error",
                   "step_update returned code " + std::to_string(code) +
                       " while being timed: " + std::string(e.message, strnlen(e.message, sizeof e.message))};
    return Status::kDeviceError;
  }

  const QsaPlugin& table_;
  void* instance_;
  PluginMetadataBuffers compressed_metadata, ring_metadata;
  PluginBuffer ring, compressed, cos_sin;
  std::vector<std::unique_ptr<PluginStepBuffers>> buffers;
  std::vector<QsaPluginStepArgs> args_;
};

}  // namespace

Status PluginBackend::prepare_device_step(const StepInput& input, const StepCaches& caches, int64_t sets,
                                          std::unique_ptr<DeviceStep>* out, Error* error) {
  if (!instance_) {
    *error = load_error_;
    return Status::kUnavailable;
  }
  const QsaPluginCapabilities& caps = library_->capabilities();
  if (caps.memory != QSA_PLUGIN_MEMORY_CUDA || (caps.features & QSA_PLUGIN_FEATURE_STEP_UPDATE) == 0 ||
      (caps.features & QSA_PLUGIN_FEATURE_GRAPH_CAPTURABLE) == 0) {
    *error = Error{"backend", -1, "not-timeable",
                   name_ +
                       ": only a CUDA plugin with a step update that declares "
                       "QSA_PLUGIN_FEATURE_GRAPH_CAPTURABLE can be timed on the GPU"};
    return Status::kNotImplemented;
  }
  if (Status s = validate_step(input, caches, error); s != Status::kOk) return s;
  if (auto missing = missing_for_step(library_->declaration(), input, caches)) {
    *error = capability_error(*missing);
    return Status::kNotImplemented;
  }
  PluginMemory& memory = *memory_;
  const StepConfig& c = input.config;
  auto step = std::make_unique<PluginDeviceStep>(library_->table(), instance_->handle);
  QsaPluginStepArgs shared{};
  fill_step_config(c, &shared);
  // The timed step reuses this metadata; the shape's checked step (qsacheck bench checks each shape
  // through the checking engine before timing it) handed the same to the engine to judge.
  std::vector<MetadataOutput> given;
  if (Status s = step_metadata(input, &step->compressed_metadata, &step->ring_metadata, &shared, &given, error);
      s != Status::kOk)
    return s;
  if (Status s = step->cos_sin.allocate_from(memory, c.cos_sin_data(), c.cos_sin_size() * sizeof(Bf16), error);
      s != Status::kOk)
    return s;
  shared.cos_sin = step->cos_sin.tensor(kDLBfloat, 16, {c.max_position, c.rotary_dim});
  if (Status s = step->ring.allocate_from(memory, caches.ring.bytes.data(), caches.ring.bytes.size(), error);
      s != Status::kOk)
    return s;
  if (Status s =
          step->compressed.allocate_from(memory, caches.compressed.bytes.data(), caches.compressed.bytes.size(), error);
      s != Status::kOk)
    return s;
  shared.ring_cache = cache_tensor(caches.ring.layout, &step->ring);
  shared.compressed_cache = cache_tensor(caches.compressed.layout, &step->compressed);
  for (int64_t i = 0; i < sets; ++i) {
    step->buffers.push_back(std::make_unique<PluginStepBuffers>());
    QsaPluginStepArgs args = shared;
    if (Status s = upload_step_inputs(memory, input, step->buffers.back().get(), &args, error); s != Status::kOk)
      return s;
    step->args_.push_back(args);
  }
  *out = std::move(step);
  return Status::kOk;
}

}  // namespace qsa::backends
