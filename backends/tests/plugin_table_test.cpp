// validate_plugin_table on hand-made tables: each defect is named with the path and the field.

#include <gtest/gtest.h>

#include <cstddef>

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

TEST(PluginTable, AnAbi10TableLoadsAndDeclaresNoConstraints) {
  // A plugin built against ABI 1.0: its capabilities end at ring_capacity (read no further).
  QsaPluginCapabilities caps = good_capabilities();
  caps.struct_size = offsetof(QsaPluginCapabilities, constraints);
  caps.constraints.max_slot = 7;  // beyond its struct_size: never read
  caps.deviations = QSA_PLUGIN_DEVIATION_NEGATIVE_SLOTS_PASS_THROUGH;
  EXPECT_EQ(rules(good_table(&caps)), "");
  std::vector<std::string> problems;
  const KernelDeclaration kernel = read_declaration(caps, &problems);
  EXPECT_TRUE(problems.empty());
  EXPECT_TRUE(kernel.constraints.empty());
  EXPECT_FALSE(kernel.deviations.any());
  EXPECT_EQ(kernel.capabilities.head_dim.max, 128);
  caps.struct_size = offsetof(QsaPluginCapabilities, ring_capacity);  // shorter than 1.0's
  EXPECT_EQ(rules(good_table(&caps)), "bad-table");
}

TEST(PluginTable, AnAbi11TableDeclaresItsConstraintsAndDeviations) {
  QsaPluginCapabilities caps = good_capabilities();
  const int64_t ratios[] = {2, 4, 8};
  const QsaPluginValueSet sets[] = {{QSA_PLUGIN_PARAM_COMPRESS_RATIO, 3, ratios}};
  const QsaPluginHeadDims dims[] = {{128, 64}};
  caps.constraints.power_of_two = 1u << QSA_PLUGIN_PARAM_RING_CAPACITY;
  caps.constraints.relations = QSA_PLUGIN_RELATION_ROTARY_DIM_IS_HALF_HEAD_DIM;
  caps.constraints.max_slot = kMaxInt32;
  caps.constraints.value_sets = sets;
  caps.constraints.num_value_sets = 1;
  caps.constraints.head_dims = dims;
  caps.constraints.num_head_dims = 1;
  caps.deviations = QSA_PLUGIN_DEVIATION_NEGATIVE_SLOTS_PASS_THROUGH;
  EXPECT_EQ(rules(good_table(&caps)), "");
  std::vector<std::string> problems;
  const KernelDeclaration kernel = read_declaration(caps, &problems);
  EXPECT_TRUE(kernel.constraints.power_of_two[QSA_PLUGIN_PARAM_RING_CAPACITY]);
  EXPECT_EQ(kernel.constraints.values[QSA_PLUGIN_PARAM_COMPRESS_RATIO], (std::vector<int64_t>{2, 4, 8}));
  EXPECT_TRUE(kernel.constraints.rotary_dim_is_half_head_dim);
  EXPECT_EQ(kernel.constraints.head_dims.size(), 1u);
  EXPECT_TRUE(kernel.deviations.negative_slots_pass_through);
}

TEST(PluginTable, MalformedConstraintsAreBadTables) {
  QsaPluginCapabilities caps = good_capabilities();
  const QsaPluginValueSet empty[] = {{QSA_PLUGIN_PARAM_HEAD_DIM, 0, nullptr}};
  caps.constraints.value_sets = empty;
  caps.constraints.num_value_sets = 1;
  caps.constraints.num_head_dims = 2;  // with a NULL array
  caps.constraints.max_tokens = -1;
  caps.deviations = 1u << 7;
  EXPECT_EQ(rules(good_table(&caps)), "bad-table,bad-table,bad-table,bad-table");
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
