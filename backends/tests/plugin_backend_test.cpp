// The adapter end to end on in-tree plugins: the host example agrees with the reference through
// the scenario runner and on padded caches with strided block tables; broken plugins are refused
// with the path and the reason; inputs outside a plugin's capabilities are declined, not run.

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <memory>

#include "declined_calls.hpp"
#include "padded_caches.hpp"
#include "stray_writes.hpp"
#include "qsa/backends/plugin_backend.hpp"
#include "qsa/backends/plugin_library.hpp"
#include "qsa/reference/reference_backend.hpp"
#include "qsa/spec_examples.hpp"
#include "qsa/engine/step_loop.hpp"
#include "qsa/engine/scenario_runner.hpp"
#include "qsa/traces/scenario_state.hpp"
#include "qsa/traces/simulator.hpp"
#include "qsa/traces/workloads.hpp"

namespace qsa::backends {
namespace {

const std::string kHost = std::string("plugin:") + QSA_TEST_PLUGIN_HOST;

traces::Scenario simulate(const std::string& workload, uint64_t seed, int64_t steps) {
  traces::Simulator simulator(traces::workload_by_name(workload), seed);
  traces::Scenario scenario{simulator.config(), {}};
  for (int64_t i = 0; i < steps && !simulator.done(); ++i) scenario.steps.push_back(simulator.next());
  return scenario;
}

std::string probe_reason(const std::string& name) {
  PluginBackend backend(name);
  std::string reason;
  EXPECT_EQ(backend.probe(&reason), Status::kUnavailable) << name;
  return reason;
}

TEST(PluginBackend, HostExamplePassesScenariosOfEveryFeature) {
  for (const char* workload : {"default", "mrope-fp8", "adversarial"}) {
    PluginBackend backend(kHost);
    std::string reason;
    ASSERT_EQ(backend.probe(&reason), Status::kOk) << reason;
    const auto failure = engine::run_scenario(simulate(workload, 7, 60), backend);
    EXPECT_FALSE(failure) << workload << ": " << engine::to_string(*failure);
  }
}

TEST(PluginBackend, HostExampleMatchesTheReferenceOnPaddedCachesAndStridedTables) {
  const traces::Scenario scenario = simulate("default", 3, 40);
  PluginBackend plugin(kHost);
  expect_reference_results_on_padded_caches(scenario, plugin);
}

TEST(PluginBackend, PlantedVariantsAreSelectedByName) {
  PluginBackend variant(kHost + "#k-work-without-minimum");
  std::string reason;
  ASSERT_EQ(variant.probe(&reason), Status::kOk) << reason;
  EXPECT_NE(probe_reason(kHost + "#no-such-variant").find("k-work-without-minimum"), std::string::npos);
}

// SPEC 7.5 through a plugin, at the step of the write.
TEST(PluginBackend, PlantedStrayWritesAreCaughtAtTheirStep) {
  expect_stray_writes_caught_at_their_step(simulate("default", 7, 60), [](const std::string& variant) {
    return std::make_unique<PluginBackend>(kHost + "#" + variant);
  });
}

TEST(PluginBackend, BrokenPluginsAreRefusedWithThePathAndTheReason) {
  const std::pair<const char*, const char*> cases[] = {
      {QSA_TEST_PLUGIN_BROKEN_ABI, "[abi-version]"},          {QSA_TEST_PLUGIN_BROKEN_NO_ENTRY, "[missing-symbol]"},
      {QSA_TEST_PLUGIN_BROKEN_NULL_STEP, "[missing-symbol]"}, {QSA_TEST_PLUGIN_BROKEN_NO_KINDS, "[missing-capability]"},
      {"/nonexistent/libnothing.so", "[unloadable]"},
  };
  for (const auto& [path, rule] : cases) {
    const std::string reason = probe_reason(std::string("plugin:") + path);
    EXPECT_EQ(reason.rfind(rule, 0), 0u) << reason;
    EXPECT_NE(reason.find(path), std::string::npos) << reason;
  }
  const std::string text = testing::TempDir() + "not_a_library.so";
  std::ofstream(text) << "not an ELF file\n";
  EXPECT_EQ(probe_reason("plugin:" + text).rfind("[unloadable]", 0), 0u);
  PluginBackend broken(std::string("plugin:") + QSA_TEST_PLUGIN_BROKEN_ABI);
  MetadataInput input = spec_metadata_examples().front().input;
  MetadataOutput out = make_poisoned_metadata_output(input);
  Error error;
  EXPECT_EQ(broken.build_metadata(input, &out, &error), Status::kUnavailable);  // never a call into it
}

TEST(PluginBackend, InputsOutsideTheCapabilitiesAreDeclinedAsNotRun) {
  PluginBackend backend(std::string("plugin:") + QSA_TEST_PLUGIN_COMPRESSED_ONLY);
  std::string reason;
  ASSERT_EQ(backend.probe(&reason), Status::kOk) << reason;
  for (const MetadataExample& example : spec_metadata_examples()) {
    MetadataOutput out = make_poisoned_metadata_output(example.input);
    Error error;
    const Status status = backend.build_metadata(example.input, &out, &error);
    if (example.input.cache.kind == CacheKind::kCompressed) {
      EXPECT_EQ(status, Status::kOk) << example.name << ": " << to_string(error);
      EXPECT_FALSE(compare_with_example(example, out)) << example.name;
    } else {
      EXPECT_EQ(status, Status::kNotImplemented) << example.name;
      EXPECT_EQ(error.rule, "missing-capability");
      EXPECT_NE(error.message.find("cache kind"), std::string::npos) << error.message;
    }
  }
  engine::ScenarioRunner runner(simulate("default", 1, 5).config, backend);
  const traces::Scenario scenario = simulate("default", 1, 5);
  ASSERT_FALSE(engine::run_steps(runner, scenario.steps).failure);
  EXPECT_FALSE(runner.step_update_supported());
  EXPECT_EQ(runner.declined().size(), 3u);  // ring and passthrough metadata, the step update
}

// The calls between steps that the compressed-only plugin's capabilities exclude: declined by the
// adapter (declined_calls.hpp).
TEST(PluginBackend, CallsTheCapabilitiesExcludeAreDeclinedBetweenSteps) {
  PluginBackend backend(std::string("plugin:") + QSA_TEST_PLUGIN_COMPRESSED_ONLY);
  expect_excluded_calls_declined(backend, simulate("default", 1, 26));
}

}  // namespace
}  // namespace qsa::backends

namespace qsa::backends {
namespace {

// Declared deviations are for other people's kernels (docs/production-kernels.md): every built-in
// backend, the reference, cuda (where built) and every planted bug, declares none and excludes
// no metadata input, so no finding of ours can be explained away. (One planted bug,
// bug:decline-word-sticks, excludes steps with MRoPE: a text-model kernel's limits, which the
// runner's decline calls need.)
TEST(DeclaredLimits, NoBuiltInBackendDeclaresADeviationOrExcludesAnInput) {
  const std::vector<std::string> names = BackendRegistry::global().names(/*include_hidden=*/true);
  ASSERT_GT(names.size(), 2u);
  for (const std::string& name : names) {
    const std::unique_ptr<Backend> backend = BackendRegistry::global().create(name);
    ASSERT_TRUE(backend) << name;
    EXPECT_FALSE(backend->deviations().any()) << name;
    for (const MetadataExample& example : spec_metadata_examples())
      EXPECT_EQ(backend->excludes(example.input), std::nullopt) << name;
  }
}

}  // namespace
}  // namespace qsa::backends
