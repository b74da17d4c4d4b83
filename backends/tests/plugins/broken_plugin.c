/* Plugins that must be refused with exit 2, one per compile definition (backends/tests):
 *   BROKEN_ABI        built for another ABI major version
 *   BROKEN_NO_ENTRY   exports no qsa_plugin_entry
 *   BROKEN_NULL_STEP  promises the step update without a step_update call
 *   BROKEN_NO_KINDS   declares no cache kind it can build metadata for */

#include <stddef.h>

#include "qsacheck/plugin.h"

static int32_t create(const QsaPluginInstanceArgs* args, void** instance, QsaPluginError* error) {
  (void)args;
  (void)error;
  *instance = NULL;
  return QSA_PLUGIN_OK;
}
static void destroy(void* instance) { (void)instance; }
static int32_t metadata(void* instance, const QsaPluginMetadataArgs* args, QsaPluginError* error) {
  (void)instance;
  (void)args;
  (void)error;
  return QSA_PLUGIN_INTERNAL;
}

static const QsaPluginCapabilities kCapabilities = {sizeof(QsaPluginCapabilities),
                                                    QSA_PLUGIN_MEMORY_HOST,
#ifdef BROKEN_NO_KINDS
                                                    0,
#else
                                                    QSA_PLUGIN_KIND_COMPRESSED,
#endif
                                                    QSA_PLUGIN_DTYPE_BF16,
#ifdef BROKEN_NULL_STEP
                                                    QSA_PLUGIN_FEATURE_STEP_UPDATE,
#else
                                                    0,
#endif
                                                    {32, 512},
                                                    {2, 512},
                                                    {1, 64},
                                                    {2, 1024},
                                                    {1, 1 << 20},
                                                    {1, 1 << 20}};

static const QsaPlugin kPlugin = {
#ifdef BROKEN_ABI
    QSA_PLUGIN_ABI_MAJOR + 98,
#else
    QSA_PLUGIN_ABI_MAJOR,
#endif
    QSA_PLUGIN_ABI_MINOR,
    sizeof(QsaPlugin),
    "broken",
    "1",
    "backends/tests/plugins/broken_plugin.c",
    &kCapabilities,
    NULL,
    0,
    create,
    destroy,
    metadata,
    NULL};

#ifdef BROKEN_NO_ENTRY
QSA_PLUGIN_EXPORT const QsaPlugin* qsa_plugin_entry_v0(void) { return &kPlugin; }
#else
QSA_PLUGIN_EXPORT const QsaPlugin* qsa_plugin_entry(void) { return &kPlugin; }
#endif
