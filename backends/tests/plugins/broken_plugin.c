/* Plugins that must be refused with exit 2, one per compile definition (backends/tests):
 *   BROKEN_ABI        built for another ABI major version
 *   BROKEN_NO_ENTRY   exports no qsa_plugin_entry
 *   BROKEN_NULL_STEP  promises the step update without a step_update call
 *   BROKEN_NO_KINDS   declares no cache kind it can build metadata for
 *   BROKEN_INVERTED_RANGE  a capability range with min above max (head_dim, unused without a step update)
 *   BROKEN_VARIANT_COUNT   declares 1000 variants with an array of one
 *   BROKEN_ENTRY_ABORTS    qsa_plugin_entry() aborts
 *   BROKEN_CONSTRUCTOR_EXITS  a constructor calls exit(0) when the library is loaded
 *   BROKEN_BAD_UTF8_MESSAGE   build_metadata fails with a message that is not UTF-8 */

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

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
#ifdef BROKEN_BAD_UTF8_MESSAGE
  strcpy(error->message, "latin-1 bytes \xe9t\xe9 and a lone \xff");
#else
  (void)error;
#endif
  return QSA_PLUGIN_INTERNAL;
}

#ifdef BROKEN_CONSTRUCTOR_EXITS
__attribute__((constructor)) static void exit_on_load(void) { exit(0); }
#endif

#ifdef BROKEN_VARIANT_COUNT
static const QsaPluginVariant kVariants[] = {{"only-one", "the array holds one variant"}};
#endif

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
#ifdef BROKEN_INVERTED_RANGE
                                                    {512, 32},
#else
                                                    {32, 512},
#endif
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
#ifdef BROKEN_VARIANT_COUNT
    kVariants,
    1000,
#else
    NULL,
    0,
#endif
    create,
    destroy,
    metadata,
    NULL};

#ifdef BROKEN_NO_ENTRY
QSA_PLUGIN_EXPORT const QsaPlugin* qsa_plugin_entry_v0(void) { return &kPlugin; }
#else
QSA_PLUGIN_EXPORT const QsaPlugin* qsa_plugin_entry(void) {
#ifdef BROKEN_ENTRY_ABORTS
  abort();
#endif
  return &kPlugin;
}
#endif
