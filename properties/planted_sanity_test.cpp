// The planted bugs prove the checks: the scenario runner catches every planted bug on the hand
// scenario (with the feature it needs), with the differential and without it, while the reference
// and the unmutated re-implementation pass the same scenario. Each case prints the check that
// caught the planted bug in each mode; docs/planted-bugs.md lists the same.

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "qsa/backends/builtin.hpp"
#include "qsa/backends/planted.hpp"
#include "qsa/reference/reference_backend.hpp"
#include "qsa/engine/check_engine.hpp"
#include "qsa/traces/extreme_batches.hpp"
#include "qsa/traces/invalid_batch.hpp"
#include "qsa/engine/scenario_runner.hpp"
#include "qsa/traces/simulator.hpp"
#include "qsa/traces/workloads.hpp"
#include "support/hand_scenarios.hpp"

namespace qsa {
namespace {

using PlantedInfo = backends::PlantedBug;

// The check that first catches each planted bug: with every check, without the differential, and with
// the model oracle alone (no metadata checks, no write check; kNotCaught: the bug lives in
// metadata the step update does not consume, or only the differential sees it).
struct Caught {
  std::optional<engine::CheckId> full;
  std::optional<engine::CheckId> no_differential;
  std::optional<engine::CheckId> oracle_only;
};
using C = engine::Check;
constexpr std::nullopt_t kNotCaught = std::nullopt;

const std::map<std::string, Caught>& expected_checks() {
  static const std::map<std::string, Caught> expected = {
      {"bug:ring-index-off-by-one", {C::kMetadataInvariant, C::kMetadataInvariant, C::kRingOpenGroup}},
      {"bug:ring-suffix-filter-dropped", {C::kMetadataInvariant, C::kMetadataInvariant, kNotCaught}},
      {"bug:ring-one-row-short", {C::kMetadataInvariant, C::kMetadataInvariant, C::kRingOpenGroup}},
      {"bug:visible-blocks-off-by-one", {C::kMetadataInvariant, C::kMetadataInvariant, kNotCaught}},
      {"bug:k-work-without-minimum", {C::kMetadataInvariant, C::kMetadataInvariant, kNotCaught}},
      {"bug:padding-rows-not-inert", {C::kMetadataInvariant, C::kMetadataInvariant, kNotCaught}},
      {"bug:compressed-slot-ignores-common-slot", {C::kMetadataInvariant, C::kMetadataInvariant, kNotCaught}},
      {"bug:token-to-req-zero-length-request", {C::kMetadataInvariant, C::kMetadataInvariant, kNotCaught}},
      {"bug:batch-split-requires-exact-padding", {C::kMetadataInvariant, C::kMetadataInvariant, kNotCaught}},
      {"bug:ring-read-after-commit", {C::kStepDifferential, C::kCompressedRow, C::kCompressedRow}},
      {"bug:pool-wrong-ring-row", {C::kStepDifferential, C::kCompressedRow, C::kCompressedRow}},
      {"bug:group-position-ignores-ring-tail", {C::kStepDifferential, C::kCompressedRow, C::kCompressedRow}},
      {"bug:position-tail-not-written", {C::kStepDifferential, C::kRingOpenGroup, C::kRingOpenGroup}},
      {"bug:q-out-skips-padding", {C::kQPath, C::kQPath, C::kQPath}},
      {"bug:wrong-mrope-axis", {C::kStepDifferential, C::kQPath, C::kQPath}},
      {"bug:fp8-no-saturation", {C::kStepDifferential, C::kCompressedRow, C::kCompressedRow}},
      {"bug:pool-accumulates-in-bf16", {C::kStepDifferential, C::kCompressedRow, C::kCompressedRow}},
      {"bug:norm-weight-without-one", {C::kStepDifferential, C::kQPath, C::kQPath}},
      {"bug:rope-interleaved-pairs", {C::kStepDifferential, C::kQPath, C::kQPath}},
      {"bug:rope-sign-slip", {C::kStepDifferential, C::kQPath, C::kQPath}},
      {"bug:skips-first-closed-group", {C::kStepDifferential, C::kCompressedRow, C::kCompressedRow}},
      {"bug:sum-of-squares-sequential", {C::kQPath, C::kQPath, C::kQPath}},
      // Rounding (docs/content.md): the hand scenario's boundary and special query rows show them.
      {"bug:bf16-round-half-away", {C::kStepDifferential, C::kQPath, C::kQPath}},
      {"bug:bf16-truncation", {C::kStepDifferential, C::kQPath, C::kQPath}},
      {"bug:flush-subnormals", {C::kQPath, C::kQPath, C::kQPath}},
      {"bug:e4m3-truncation", {C::kStepDifferential, C::kQPath, C::kQPath}},
      // Invalid input only: the engine against the reference's answer (no scenario holds one).
      {"bug:error-index-one-based", {C::kMetadataError, kNotCaught, kNotCaught}},
      {"bug:clears-output-before-validating", {C::kMetadataUntouched, kNotCaught, kNotCaught}},
      // The classes of docs/input-space.md, each on its scenario of the edges workload.
      {"bug:slot-int32-overflow", {C::kMetadataInvariant, C::kMetadataInvariant, kNotCaught}},
      {"bug:requests-capped-at-1024", {C::kMetadataInvariant, C::kMetadataInvariant, C::kRingOpenGroup}},
      {"bug:compress-ratio-shift", {C::kMetadataInvariant, C::kMetadataInvariant, C::kCompressedRow}},
      // The invariants hold the split only to rule 3 (all decodes); rule 4's count needs the reference.
      {"bug:zero-length-first-skipped", {C::kMetadataDifferential, kNotCaught, kNotCaught}},
      {"bug:mrope-proportional-sections", {C::kStepDifferential, C::kQPath, C::kQPath}},
      // The step classes of docs/input-space.md, each on its scenario of the step-edges workload.
      {"bug:cache-rows-packed", {C::kStepDifferential, C::kCompressedRow, C::kCompressedRow}},
      {"bug:cache-blocks-packed", {C::kStepDifferential, C::kCompressedRow, C::kCompressedRow}},
      {"bug:block-table-row-major", {C::kMetadataInvariant, C::kMetadataInvariant, C::kCompressedRow}},
      // With the metadata unchecked, ring block 0 of another request gives a position tail past the
      // table: the step status shows it.
      {"bug:missing-block-as-block-zero", {C::kMetadataInvariant, C::kMetadataInvariant, C::kStepStatus}},
      {"bug:split-assumes-decodes-first", {C::kMetadataInvariant, C::kMetadataInvariant, kNotCaught}},
      {"bug:stops-at-zero-length-request", {C::kStepDifferential, C::kCompressedRow, C::kCompressedRow}},
      // The skipped step writes neither q_out nor its status word; the status is checked first.
      {"bug:all-padding-step-skipped", {C::kStepStatus, C::kStepStatus, C::kStepStatus}},
      {"bug:eps-clamped-to-one", {C::kStepDifferential, C::kQPath, C::kQPath}},
      {"bug:weights-nan-to-num", {C::kStepDifferential, C::kQPath, C::kQPath}},
      // The far edges of SPEC 1.3 (the extreme batches) and a rule of SPEC 1.4 (the invalid batches).
      {"bug:passthrough-slot-int32", {C::kMetadataInvariant, kNotCaught, kNotCaught}},
      {"bug:rows-past-grid-limit", {C::kMetadataInvariant, kNotCaught, kNotCaught}},
      {"bug:request-capacity-unchecked", {C::kMetadataStatus, kNotCaught, kNotCaught}},
      // Row roles and call sequences: content version 3's stale padding and the rejected call the
      // runner makes before step 0 (the valid call then answers with the kept error).
      {"bug:padding-position-zero", {C::kQPath, C::kQPath, C::kQPath}},
      {"bug:passthrough-minus-one-only", {C::kMetadataInvariant, C::kMetadataInvariant, kNotCaught}},
      {"bug:error-state-sticks", {C::kStepUpdateStatus, C::kStepUpdateStatus, C::kStepUpdateStatus}},
      // Call sequences (traces/interleaved_calls.hpp): the step after the step-status call reports
      // the kept status; the other-configuration call grows the staged weights.
      {"bug:step-status-sticks", {C::kStepStatus, C::kStepStatus, C::kStepStatus}},
      {"bug:norm-weights-staged-once", {C::kStepDifferential, C::kQPath, C::kQPath}},
      // A capability decline (docs/planted-bugs.md (18)): the step after the declined step-status
      // call reports the kept error word as its status.
      {"bug:decline-word-sticks", {C::kStepStatus, C::kStepStatus, C::kStepStatus}},
      // The prefix-cache classes, on a prefix-sharing scenario: the oracle checks the
      // hitting request's shared groups after its first chunk, before the differential runs.
      {"bug:recloses-group-before-chunk", {C::kCompressedRow, C::kCompressedRow, C::kCompressedRow}},
      // Numerical alternatives of SPEC 6 (content versions 4 and 5's searched and built rows; C = 3
      // or 6 of the edges workload's ratio scenario for the reciprocal multiply).
      {"bug:fma-contraction", {C::kQPath, C::kQPath, C::kQPath}},
      {"bug:pool-reciprocal-multiply", {C::kStepDifferential, C::kCompressedRow, C::kCompressedRow}},
      {"bug:pool-pairwise-tree", {C::kStepDifferential, C::kCompressedRow, C::kCompressedRow}},
      {"bug:pool-reverse-order", {C::kStepDifferential, C::kCompressedRow, C::kCompressedRow}},
      {"bug:sum-of-squares-halving-tree", {C::kQPath, C::kQPath, C::kQPath}},
      {"bug:sum-of-squares-fma", {C::kQPath, C::kQPath, C::kQPath}},
      {"bug:rsqrt-single-rounding", {C::kQPath, C::kQPath, C::kQPath}},
      {"bug:norm-divides-by-rms", {C::kQPath, C::kQPath, C::kQPath}},
      {"bug:norm-scale-reassociated", {C::kQPath, C::kQPath, C::kQPath}},
      {"bug:rope-fma", {C::kQPath, C::kQPath, C::kQPath}},
      {"bug:rope-products-in-bf16", {C::kStepDifferential, C::kQPath, C::kQPath}},
      {"bug:bf16-nan-canonical", {C::kStepDifferential, C::kQPath, C::kQPath}},
  };
  return expected;
}

struct Mode {
  const char* name;
  engine::RunOptions options;
  std::optional<engine::CheckId> Caught::*check;  // the expected check of this mode
};

std::vector<Mode> modes() {
  engine::RunOptions no_differential;
  no_differential.differential = false;
  engine::RunOptions oracle_only = no_differential;
  oracle_only.check_metadata = false;
  oracle_only.check_writes = false;
  return {{"full", engine::RunOptions{}, &Caught::full},
          {"no-differential", no_differential, &Caught::no_differential},
          {"oracle-only", oracle_only, &Caught::oracle_only}};
}

// The scenario of one member of the edges or step-edges workload ("edges-ratio" -> edges:ratio,
// "step-edges-weights" -> step-edges:weights), as long as the default campaign runs it:
// consecutive seeds take the members in turn.
traces::Scenario edges_scenario(const std::string& workload, const std::string& needs, int64_t steps) {
  const traces::Workload edges = traces::workload_by_name(workload);
  const std::string member = workload + ":" + needs.substr(workload.size() + 1);
  for (uint64_t seed = 0; seed < edges.mix.size(); ++seed)
    if (traces::resolve_workload(edges, seed).config.workload == member) return traces::simulate(edges, seed, steps);
  ADD_FAILURE() << "no " << workload << " member " << member;
  return {};
}

// The hand scenario has every feature a planted bug needs except a zero-length request in the middle,
// which the scenario file format cannot hold; its variant has that too.
traces::Scenario scenario_for(const PlantedInfo& info) {
  if (info.needs.rfind("edges-", 0) == 0) return edges_scenario("edges", info.needs, 40);
  if (info.needs.rfind("step-edges-", 0) == 0) return edges_scenario("step-edges", info.needs, 16);
  const bool mrope = info.needs == "mrope";
  const StoreDtype dtype = info.needs == "fp8" ? StoreDtype::kFp8E4m3 : StoreDtype::kBf16;
  if (info.needs == "zero-length-request") return testing::hand_scenario_with_zero_length_request(mrope, dtype);
  if (info.needs == "many-rows") return traces::simulate(traces::workload_by_name("default"), 7, 600);
  if (info.needs == "prefix-hit") return traces::simulate(traces::workload_by_name("prefix-sharing"), 1, 200);
  // Content versions 4 and 5's searched rows: the default campaign's first scenario at seed 1.
  if (info.needs == "alternatives") return traces::simulate(traces::workload_by_name("default"), 1000003, 20);
  // The calls before steps 8 and 24 (traces/interleaved_calls.hpp) and the steps after them.
  if (info.needs == "interleaved-call") return traces::simulate(traces::workload_by_name("default"), 1, 26);
  // The declined calls before steps 8 and 24 on a kernel without MRoPE: the first default scenario
  // without it (a campaign draws such a kernel only those).
  if (info.needs == "declined-call") {
    const traces::Workload workload = traces::workload_by_name("default");
    uint64_t seed = 1;
    while (traces::resolve_workload(workload, seed).config.mrope) ++seed;
    return traces::simulate(workload, seed, 26);
  }
  return testing::hand_scenario(mrope, dtype);
}

std::string describe(const std::optional<engine::RunFailure>& failure) {
  return failure ? engine::to_string(*failure) : std::string("not caught");
}

TEST(PlantedCatalog, EveryEntryIsRegisteredHiddenUnderAUniqueName) {
  BackendRegistry registry;
  backends::register_builtin_backends(registry);
  const std::vector<std::string> visible = registry.names();
  const std::vector<std::string> all = registry.names(/*include_hidden=*/true);
  ASSERT_GE(backends::planted_cpu_bugs().size(), 14u);
  for (const PlantedInfo& info : backends::planted_cpu_bugs()) {
    EXPECT_EQ(info.name.rfind("bug:", 0), 0u) << info.name;
    EXPECT_FALSE(info.description.empty()) << info.name;
    EXPECT_TRUE(registry.contains(info.name)) << info.name;
    EXPECT_EQ(std::count(all.begin(), all.end(), info.name), 1) << info.name << " is not registered exactly once";
    EXPECT_EQ(std::count(visible.begin(), visible.end(), info.name), 0) << info.name << " is not hidden";
    EXPECT_EQ(registry.description(info.name), info.description);
    const auto backend = registry.create(info.name);
    ASSERT_NE(backend, nullptr) << info.name;
    EXPECT_EQ(backend->name(), info.name);
    EXPECT_EQ(expected_checks().count(info.name), 1u) << info.name << " has no expected check in this test";
  }
  for (const PlantedInfo& info : backends::known_escapes())
    EXPECT_FALSE(registry.contains(info.name)) << info.name << " escapes: not registered";
}

TEST(PlantedCatalog, ControlWithoutABugEqualsTheReferenceOnEveryHandScenario) {
  for (bool mrope : {false, true}) {
    for (StoreDtype dtype : {StoreDtype::kBf16, StoreDtype::kFp8E4m3}) {
      for (const traces::Scenario& scenario :
           {testing::hand_scenario(mrope, dtype), testing::hand_scenario_with_zero_length_request(mrope, dtype)}) {
        reference::ReferenceBackend reference;
        const auto reference_failure =
            engine::run_scenario(scenario, reference, engine::RunOptions{true, true, true, true, 1});
        EXPECT_FALSE(reference_failure.has_value()) << describe(reference_failure);
        const auto control = backends::make_planted_backend("bug:none");
        ASSERT_NE(control, nullptr);
        const auto failure = engine::run_scenario(scenario, *control, engine::RunOptions{true, true, true, true, 1});
        EXPECT_FALSE(failure.has_value()) << "mrope " << mrope << ", " << to_string(dtype) << ": " << describe(failure);
      }
    }
  }
}

class PlantedBugIsCaught : public ::testing::TestWithParam<PlantedInfo> {};

// Every mode of the runner passes a bug that no scenario shows (scenarios are valid by
// construction and far from SPEC 1.3's limits).
void expect_scenarios_pass(const PlantedInfo& info) {
  const auto backend = backends::make_planted_backend(info.name);
  for (const Mode& mode : modes()) {
    const auto failure = engine::run_scenario(testing::hand_scenario(false, StoreDtype::kBf16), *backend, mode.options);
    EXPECT_FALSE(failure.has_value()) << info.name << " [" << mode.name << "]: " << describe(failure);
  }
}

// A validation bug: the checking engine catches it on invalid batches against the reference's
// error ("full"); a bug at the limits of SPEC 1.3, on the extreme batches.
void expect_caught_by_the_engine(const PlantedInfo& info, const Caught& want) {
  expect_scenarios_pass(info);
  const auto backend = backends::make_planted_backend(info.name);
  std::optional<engine::Finding> finding;
  std::string where;
  if (info.needs == "invalid-input") {
    for (uint64_t i = 0; i < 400 && !finding; ++i) {  // Rng(1).fork(i): one of 16 rules each
      traces::Rng rng = traces::Rng(1).fork(i);
      finding = engine::check_metadata_against_reference(*backend, traces::random_invalid_metadata_input(rng).input);
      where = "invalid batch " + std::to_string(i);
    }
  } else {
    for (int64_t k = 0; k < traces::kNumExtremeBatches && !finding; ++k) {
      const traces::ExtremeBatch extreme = traces::extreme_metadata_batch(k);
      finding = engine::check_metadata_against_reference(*backend, extreme.input);
      where = std::string("extreme batch ") + extreme.name;
    }
  }
  std::cout << info.name << " [" << info.needs << "]: " << (finding ? where + ": " + finding->to_string() : "not caught")
            << "\n";
  EXPECT_EQ(finding ? std::optional<engine::CheckId>(finding->check) : kNotCaught, want.full) << info.name;
}

TEST_P(PlantedBugIsCaught, OnTheHandScenarioWithAndWithoutTheDifferential) {
  const PlantedInfo& info = GetParam();
  if (info.needs == "invalid-input" || info.needs == "extreme-batches") {
    const auto expected = expected_checks().find(info.name);
    ASSERT_NE(expected, expected_checks().end()) << info.name << " has no expected check in this test";
    expect_caught_by_the_engine(info, expected->second);
    return;
  }
  const traces::Scenario scenario = scenario_for(info);
  reference::ReferenceBackend reference;
  const auto reference_failure = engine::run_scenario(scenario, reference);
  ASSERT_FALSE(reference_failure.has_value()) << "the reference fails the scenario: " << describe(reference_failure);

  const auto expected = expected_checks().find(info.name);
  const Caught want = expected != expected_checks().end() ? expected->second : Caught{};
  for (const Mode& mode : modes()) {
    const auto backend = backends::make_planted_backend(info.name);
    ASSERT_NE(backend, nullptr) << info.name;
    const auto failure = engine::run_scenario(scenario, *backend, mode.options);
    std::cout << info.name << " [" << mode.name << "]: " << describe(failure) << "\n";
    ASSERT_FALSE(failure && failure->invalid_scenario) << describe(failure);
    if (mode.check == &Caught::full) {
      EXPECT_TRUE(failure.has_value()) << info.name << " escapes every check";
    }
    EXPECT_EQ(failure ? std::optional<engine::CheckId>(failure->check) : kNotCaught, want.*mode.check)
        << info.name << " [" << mode.name << "]";
  }
  EXPECT_NE(expected, expected_checks().end()) << info.name << " has no expected check in this test";
}

// True when some chunk (re)starts a request past position 0 on blocks of the prefix cache (a
// hit, or a recompute's hit on its own cached blocks): the only chunks whose ring holds nothing of
// the group before them.
bool restarts_past_zero(const traces::Scenario& scenario) {
  std::set<int64_t> running;
  for (const traces::StepRecord& step : scenario.steps) {
    for (const traces::ChunkRecord& chunk : step.chunks) {
      if (running.count(chunk.request) == 0 && chunk.start > 0 && !chunk.prefilled) return true;
      running.insert(chunk.request);
    }
    for (int64_t id : step.finished) running.erase(id);
    for (int64_t id : step.preempted) running.erase(id);
  }
  return false;
}

// The prefix-cache bug shows only where a chunk starts on cached blocks: of the first 120 steps of
// every workload at seed 1 and the hand scenario, each without such a start passes every check;
// some have one and are caught.
TEST(PrefixCacheBug, ShowsOnlyWhereAChunkStartsOnCachedBlocks) {
  int without = 0, with = 0;
  std::vector<std::pair<std::string, traces::Scenario>> scenarios = {{"hand", testing::hand_scenario()}};
  for (const std::string& name : traces::workload_names())
    scenarios.emplace_back(name, traces::simulate(traces::workload_by_name(name), 1, 120));
  for (const auto& [name, scenario] : scenarios) {
    const auto backend = backends::make_planted_backend("bug:recloses-group-before-chunk");
    const auto failure = engine::run_scenario(scenario, *backend);
    std::cout << name << ": " << (restarts_past_zero(scenario) ? "a start on cached blocks, " : "none, ")
              << describe(failure) << "\n";
    if (restarts_past_zero(scenario)) {
      with += failure.has_value();
    } else {
      ++without;
      EXPECT_FALSE(failure.has_value()) << name << ": " << describe(failure);
    }
  }
  EXPECT_GT(without, 0);
  EXPECT_GT(with, 0);
}

// Issue 55's call-sequence bugs need the calls between steps: the same scenarios without them
// (content version 2, whose scenarios the runner calls nothing between) pass every check on a fresh
// instance, every workload for 60 steps at seed 1.
TEST(CallSequenceBugs, PassEveryCheckWithoutTheCallsBetweenSteps) {
  for (const char* bug : {"bug:step-status-sticks", "bug:norm-weights-staged-once", "bug:decline-word-sticks"})
    for (const std::string& name : traces::workload_names()) {
      traces::Scenario scenario = traces::simulate(traces::workload_by_name(name), 1, 60);
      scenario.config.content_version = 2;
      const auto backend = backends::make_planted_backend(bug);
      const auto failure = engine::run_scenario(scenario, *backend);
      EXPECT_FALSE(failure.has_value()) << bug << " on " << name << ": " << describe(failure);
    }
}

// A known escape passes every check on the hand scenario with the features it could use. When one
// starts failing here, a check now sees it: move it into catalog() (planted/src/catalog.cpp). The
// list is empty today (docs/planted-bugs.md "Known escapes").
class KnownEscape : public ::testing::TestWithParam<PlantedInfo> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(KnownEscape);

TEST_P(KnownEscape, PassesEveryCheckOnTheHandScenario) {
  const PlantedInfo& info = GetParam();
  for (bool mrope : {false, true}) {
    for (StoreDtype dtype : {StoreDtype::kBf16, StoreDtype::kFp8E4m3}) {
      const auto backend = backends::make_planted_backend(info.name);
      ASSERT_NE(backend, nullptr) << info.name;
      const auto failure = engine::run_scenario(testing::hand_scenario(mrope, dtype), *backend,
                                                engine::RunOptions{true, true, true, true, 1});
      EXPECT_FALSE(failure.has_value()) << info.name
                                        << " is caught now (move it into the catalog): " << describe(failure);
    }
  }
}

std::string test_name(const ::testing::TestParamInfo<PlantedInfo>& param) {
  std::string name = param.param.name.substr(4);  // drop "bug:"
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(Catalog, PlantedBugIsCaught, ::testing::ValuesIn(backends::planted_cpu_bugs()), test_name);
INSTANTIATE_TEST_SUITE_P(Escapes, KnownEscape, ::testing::ValuesIn(backends::known_escapes()), test_name);

}  // namespace
}  // namespace qsa
