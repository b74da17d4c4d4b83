// validate_plugin_table on hand-made tables: each defect is named with the path and the field.

#include <gtest/gtest.h>

#include "qsa/backends/plugin_library.hpp"

namespace qsa::backends {
namespace {

int32_t create(const QsaPluginInstanceArgs*, void**, QsaPluginError*) { return QSA_PLUGIN_OK; }
void destroy(void*) {}
int32_t metadata(void*, const QsaPluginMetadataArgs*, QsaPluginError*) { return QSA_PLUGIN_OK; }
int32_t step(void*, const QsaPluginStepArgs*, QsaPluginError*) { return QSA_PLUGIN_OK; }

QsaPluginCapabilities good_capabilities() {
  return QsaPluginCapabilities{sizeof(QsaPluginCapabilities),
                               QSA_PLUGIN_MEMORY_HOST,
                               QSA_PLUGIN_KIND_COMPRESSED | QSA_PLUGIN_KIND_RING,
                               QSA_PLUGIN_DTYPE_BF16,
                               QSA_PLUGIN_FEATURE_STEP_UPDATE,
                               {32, 128},
                               {2, 64},
                               {1, 8},
                               {2, 8},
                               {1, 1024},
                               {1, 64}};
}

QsaPlugin good_table(const QsaPluginCapabilities* caps) {
  return QsaPlugin{QSA_PLUGIN_ABI_MAJOR,
                   QSA_PLUGIN_ABI_MINOR,
                   sizeof(QsaPlugin),
                   "t",
                   "1",
                   "",
                   caps,
                   nullptr,
                   0,
                   create,
                   destroy,
                   metadata,
                   step};
}

// The rules of the problems found, in order.
std::string rules(const QsaPlugin& table) {
  std::string out;
  for (const Error& e : validate_plugin_table(table, "/x/lib.so")) {
    EXPECT_NE(e.message.find("/x/lib.so"), std::string::npos) << e.message;
    out += (out.empty() ? "" : ",") + e.rule;
  }
  return out;
}

TEST(PluginTable, AWellFormedTableHasNoProblems) {
  const QsaPluginCapabilities caps = good_capabilities();
  EXPECT_EQ(rules(good_table(&caps)), "");
}

TEST(PluginTable, AnotherAbiMajorVersionIsRefusedBeforeAnythingElseIsRead) {
  QsaPluginCapabilities caps = good_capabilities();
  QsaPlugin table = good_table(&caps);
  table.abi_major = QSA_PLUGIN_ABI_MAJOR + 1;
  table.create = nullptr;  // unreadable under a foreign layout: not reported
  EXPECT_EQ(rules(table), "abi-version");
}

TEST(PluginTable, MissingCallsAreMissingSymbols) {
  const QsaPluginCapabilities caps = good_capabilities();
  QsaPlugin table = good_table(&caps);
  table.build_metadata = nullptr;
  table.step_update = nullptr;  // promised by STEP_UPDATE
  EXPECT_EQ(rules(table), "missing-symbol,missing-symbol");
}

TEST(PluginTable, CapabilitiesMustNameSomethingUsable) {
  QsaPluginCapabilities caps = good_capabilities();
  caps.cache_kinds = 0;
  caps.head_dim = QsaPluginRange{64, 32};
  EXPECT_EQ(rules(good_table(&caps)), "missing-capability,missing-capability");
  QsaPlugin no_caps = good_table(nullptr);
  EXPECT_EQ(rules(no_caps), "missing-capability");
}

TEST(PluginTable, VariantNamesAreUniqueAndUsableInABackendName) {
  const QsaPluginCapabilities caps = good_capabilities();
  QsaPlugin table = good_table(&caps);
  const QsaPluginVariant variants[] = {{"off-by-one", ""}, {"off-by-one", ""}, {"has space", ""}};
  table.variants = variants;
  table.num_variants = 3;
  EXPECT_EQ(rules(table), "bad-table,bad-table");
}

TEST(PluginName, SplitsPathAndVariant) {
  auto n = parse_plugin_name("plugin:/a/b.so#k-work");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->path, "/a/b.so");
  EXPECT_EQ(n->variant, "k-work");
  EXPECT_EQ(parse_plugin_name("plugin:./c.so")->variant, "");
  EXPECT_FALSE(parse_plugin_name("reference"));
  EXPECT_FALSE(parse_plugin_name("plugin:"));
}

}  // namespace
}  // namespace qsa::backends
