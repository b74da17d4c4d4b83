// A working plugin with narrow capabilities: metadata of the compressed kind only, no step
// update. It reuses the host example's metadata; the point is what qsacheck does with the rest
// (a campaign reports it as not run, exit 3; `eval` on it is a missing-capability error, exit 2).

#include "example.hpp"

namespace {

const QsaPluginCapabilities kCapabilities = {sizeof(QsaPluginCapabilities),
                                             QSA_PLUGIN_MEMORY_HOST,
                                             QSA_PLUGIN_KIND_COMPRESSED,
                                             0,
                                             0,
                                             {32, 512},
                                             {2, 512},
                                             {1, 64},
                                             {2, 1024},
                                             {1, 1 << 20},
                                             {1, 1 << 20}};

int32_t create(const QsaPluginInstanceArgs*, void** instance, QsaPluginError*) {
  static int token;
  *instance = &token;
  return QSA_PLUGIN_OK;
}
void destroy(void*) {}
int32_t metadata(void*, const QsaPluginMetadataArgs* args, QsaPluginError*) {
  const example::KindParams params{args->cache_kind, args->compress_ratio, args->storage_block_size,
                                   args->ring_capacity};
  example::write_metadata(example::build_metadata(params, args->batch, args->block_table, example::Variant::kNone),
                          args->out);
  return QSA_PLUGIN_OK;
}

const QsaPlugin kPlugin = {QSA_PLUGIN_ABI_MAJOR,
                           QSA_PLUGIN_ABI_MINOR,
                           sizeof(QsaPlugin),
                           "compressed-only",
                           "1",
                           "backends/tests/plugins",
                           &kCapabilities,
                           nullptr,
                           0,
                           create,
                           destroy,
                           metadata,
                           nullptr};

}  // namespace

extern "C" QSA_PLUGIN_EXPORT const QsaPlugin* qsa_plugin_entry(void) { return &kPlugin; }
