// The table qsacheck loads: name, SPEC version, capabilities, planted variants, and the calls.

#include <cstdio>
#include <cstring>
#include <new>

#include "example.hpp"

namespace example {
namespace {

struct Instance {
  Variant variant = Variant::kNone;
};

const QsaPluginVariant kVariants[] = {
    {"k-work-without-minimum", "k-work gives n_j = e_j/C - s_j/C items, so a chunk that closes no group gets none"},
    {"fp8-no-saturation", "fp8 stores cast without saturation: values that round beyond 448 become NaN"},
};

const QsaPluginCapabilities kCapabilities = {
    sizeof(QsaPluginCapabilities),
    QSA_PLUGIN_MEMORY_HOST,
    QSA_PLUGIN_KIND_COMPRESSED | QSA_PLUGIN_KIND_RING | QSA_PLUGIN_KIND_PASSTHROUGH,
    QSA_PLUGIN_DTYPE_BF16 | QSA_PLUGIN_DTYPE_FP8_E4M3,
    QSA_PLUGIN_FEATURE_STEP_UPDATE | QSA_PLUGIN_FEATURE_MROPE | QSA_PLUGIN_FEATURE_RING_POSITIONS |
        QSA_PLUGIN_FEATURE_STRIDED_BLOCK_TABLE | QSA_PLUGIN_FEATURE_PADDED_CACHE_STRIDES |
        QSA_PLUGIN_FEATURE_CONCURRENT_INSTANCES,
    {32, 512},     // head_dim
    {2, 512},      // rotary_dim
    {1, 1024},     // num_heads
    {1, 1024},     // compress_ratio
    {1, 1 << 20},  // storage_block_size
    {1, 1 << 20},  // ring_capacity
};

int32_t fail(QsaPluginError* error, int32_t code, const char* message) {
  std::snprintf(error->message, sizeof error->message, "%s", message);
  return code;
}

int32_t create(const QsaPluginInstanceArgs* args, void** instance, QsaPluginError* error) {
  Variant variant = Variant::kNone;
  if (args->variant != nullptr) {
    if (std::strcmp(args->variant, kVariants[0].name) == 0)
      variant = Variant::kKWorkWithoutMinimum;
    else if (std::strcmp(args->variant, kVariants[1].name) == 0)
      variant = Variant::kFp8NoSaturation;
    else
      return fail(error, QSA_PLUGIN_INVALID_INPUT, "unknown variant");
  }
  auto* created = new (std::nothrow) Instance{variant};
  if (created == nullptr) return fail(error, QSA_PLUGIN_INTERNAL, "out of memory");
  *instance = created;
  return QSA_PLUGIN_OK;
}

void destroy(void* instance) { delete static_cast<Instance*>(instance); }

int32_t metadata(void* instance, const QsaPluginMetadataArgs* args, QsaPluginError*) {
  const KindParams params{args->cache_kind, args->compress_ratio, args->storage_block_size, args->ring_capacity};
  write_metadata(build_metadata(params, args->batch, args->block_table, static_cast<Instance*>(instance)->variant),
                 args->out);
  return QSA_PLUGIN_OK;
}

int32_t step(void* instance, const QsaPluginStepArgs* args, QsaPluginError*) {
  step_update(*args, static_cast<Instance*>(instance)->variant);
  return QSA_PLUGIN_OK;
}

const QsaPlugin kPlugin = {
    QSA_PLUGIN_ABI_MAJOR,
    QSA_PLUGIN_ABI_MINOR,
    sizeof(QsaPlugin),
    "example-host",
    "1",
    "examples/plugins/host, " __VERSION__,
    &kCapabilities,
    kVariants,
    2,
    create,
    destroy,
    metadata,
    step,
};

}  // namespace
}  // namespace example

extern "C" QSA_PLUGIN_EXPORT const QsaPlugin* qsa_plugin_entry(void) { return &example::kPlugin; }
