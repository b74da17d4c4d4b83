// The table qsacheck loads for the example CUDA plugin: capabilities, planted variants, and calls
// that queue the kernels on the stream qsacheck passes (qsacheck synchronizes it afterwards).

#include <cstdio>
#include <cstring>
#include <new>

#include "kernels.hpp"

namespace example_cuda {
namespace {

struct Instance {
  Variant variant = Variant::kNone;
  int device = 0;
};

const QsaPluginVariant kVariants[] = {
    {"split-ignores-padding", "the batch split treats a padded uniform decode batch as mixed (rule 3 without padding)"},
    {"group-position-last-member", "with ring positions, a group is rotated at its last member's position"},
};

const QsaPluginCapabilities kCapabilities = {
    sizeof(QsaPluginCapabilities),
    QSA_PLUGIN_MEMORY_CUDA,
    QSA_PLUGIN_KIND_COMPRESSED | QSA_PLUGIN_KIND_RING | QSA_PLUGIN_KIND_PASSTHROUGH,
    QSA_PLUGIN_DTYPE_BF16 | QSA_PLUGIN_DTYPE_FP8_E4M3,
    QSA_PLUGIN_FEATURE_STEP_UPDATE | QSA_PLUGIN_FEATURE_MROPE | QSA_PLUGIN_FEATURE_RING_POSITIONS |
        QSA_PLUGIN_FEATURE_STRIDED_BLOCK_TABLE | QSA_PLUGIN_FEATURE_PADDED_CACHE_STRIDES |
        QSA_PLUGIN_FEATURE_CONCURRENT_INSTANCES | QSA_PLUGIN_FEATURE_STEP_USES_METADATA |
        QSA_PLUGIN_FEATURE_GRAPH_CAPTURABLE,  // step_update only queues work (qsacheck bench times it)
    {32, 512},                                // head_dim (shared-memory rows of 512 floats)
    {2, 512},                                 // rotary_dim
    {1, 1 << 16},                             // num_heads
    {1, 1024},                                // compress_ratio
    {1, 1 << 20},                             // storage_block_size
    {1, 1 << 20},                             // ring_capacity
};

int32_t fail(QsaPluginError* error, int32_t code, const char* what, cudaError_t err) {
  std::snprintf(error->message, sizeof error->message, "%s: %s", what, cudaGetErrorString(err));
  return code;
}

int32_t create(const QsaPluginInstanceArgs* args, void** instance, QsaPluginError* error) {
  Variant variant = Variant::kNone;
  if (args->variant != nullptr) {
    if (std::strcmp(args->variant, kVariants[0].name) == 0)
      variant = Variant::kSplitIgnoresPadding;
    else if (std::strcmp(args->variant, kVariants[1].name) == 0)
      variant = Variant::kGroupPositionLastMember;
    else
      return fail(error, QSA_PLUGIN_INVALID_INPUT, "unknown variant", cudaSuccess);
  }
  if (cudaError_t err = cudaSetDevice(args->device_ordinal); err != cudaSuccess)
    return fail(error, QSA_PLUGIN_DEVICE_ERROR, "cudaSetDevice", err);
  auto* created = new (std::nothrow) Instance{variant, args->device_ordinal};
  if (created == nullptr) return fail(error, QSA_PLUGIN_INTERNAL, "out of memory", cudaSuccess);
  *instance = created;
  return QSA_PLUGIN_OK;
}

void destroy(void* instance) { delete static_cast<Instance*>(instance); }

int32_t metadata(void* instance, const QsaPluginMetadataArgs* args, QsaPluginError* error) {
  const auto* self = static_cast<Instance*>(instance);
  cudaSetDevice(self->device);
  if (cudaError_t err = launch_metadata(*args, self->variant, static_cast<cudaStream_t>(args->stream));
      err != cudaSuccess)
    return fail(error, QSA_PLUGIN_DEVICE_ERROR, "metadata kernels", err);
  return QSA_PLUGIN_OK;
}

int32_t step(void* instance, const QsaPluginStepArgs* args, QsaPluginError* error) {
  const auto* self = static_cast<Instance*>(instance);
  cudaSetDevice(self->device);
  if (cudaError_t err = launch_step_update(*args, self->variant, static_cast<cudaStream_t>(args->stream));
      err != cudaSuccess)
    return fail(error, QSA_PLUGIN_DEVICE_ERROR, "step update kernels", err);
  return QSA_PLUGIN_OK;
}

const QsaPlugin kPlugin = {
    QSA_PLUGIN_ABI_MAJOR,
    QSA_PLUGIN_ABI_MINOR,
    sizeof(QsaPlugin),
    "example-cuda",
    "1",
    "examples/plugins/cuda (straightforward kernels, sm_90)",
    &kCapabilities,
    kVariants,
    2,
    create,
    destroy,
    metadata,
    step,
};

}  // namespace
}  // namespace example_cuda

extern "C" QSA_PLUGIN_EXPORT const QsaPlugin* qsa_plugin_entry(void) { return &example_cuda::kPlugin; }
