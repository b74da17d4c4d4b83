// SPEC 6's declared tolerance mode (`--float-tolerance row-ulp:N`): the row-ulp measure and its
// statistics on hand-built rows with known distances, the flag and the scenario-file field, and
// the mode end to end: a backend with upstream-like arithmetic (approximate rsqrt, bf16-rounded
// RoPE products, tree-ordered pooling) fails exact mode and passes the tolerance, while the same
// backend with a real bug planted fails it at row-ulp:2 (its tolerance) and at row-ulp:4.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "qsa/backends/planted.hpp"
#include "qsa/backends/registry.hpp"
#include "qsa/numerics.hpp"
#include "qsa/engine/float_comparator.hpp"
#include "qsa/engine/float_statistics.hpp"
#include "qsa/traces/json_reader.hpp"
#include "qsa/engine/same_failure.hpp"
#include "qsa/traces/scenario_file.hpp"
#include "qsa/engine/scenario_runner.hpp"
#include "qsa/engine/shrinker.hpp"
#include "qsa/traces/simulator.hpp"
#include "qsa/traces/workloads.hpp"
#include "support/backend_under_test.hpp"
#include "support/hand_scenarios.hpp"

namespace qsa {
namespace {

using traces::FloatTolerance;

// The tolerance the upstream-like arithmetic is held to (docs/design.md "The float tolerance mode",
// docs/decisions.md): content version 4's rsqrt rows (a mean square a power of four, scaled so eps
// moves rrms by an ulp) are the rows where SPEC 6 measured two row-ulps from an approximate rsqrt.
constexpr int64_t kUpstreamLikeUlps = 2;

FloatTolerance row_ulp(int64_t n) { return FloatTolerance{FloatTolerance::Mode::kRowUlp, n}; }

// bf16 values as little-endian bytes (values chosen exactly representable).
std::vector<uint8_t> bf16_bytes(const std::vector<float>& values) {
  std::vector<uint8_t> bytes;
  for (float v : values) {
    const Bf16 b = bf16_from_float(v);
    EXPECT_EQ(float_from_bf16(b), v) << v << " is not a bf16 value";
    bytes.push_back(static_cast<uint8_t>(b & 0xFF));
    bytes.push_back(static_cast<uint8_t>(b >> 8));
  }
  return bytes;
}

TEST(FloatTolerance, FormatSpacingAtAMagnitude) {
  EXPECT_EQ(engine::format_ulp_at(1.0, 2), std::ldexp(1.0, -7));
  EXPECT_EQ(engine::format_ulp_at(8.0, 2), std::ldexp(1.0, -4));
  EXPECT_EQ(engine::format_ulp_at(15.9, 2), std::ldexp(1.0, -4));
  EXPECT_EQ(engine::format_ulp_at(0.0, 2), std::ldexp(1.0, -133));  // bf16 subnormal spacing
  EXPECT_EQ(engine::format_ulp_at(1.0, 1), 0.125);                  // e4m3: 3 mantissa bits
  EXPECT_EQ(engine::format_ulp_at(448.0, 1), 32.0);
  EXPECT_EQ(engine::format_ulp_at(0.0, 1), std::ldexp(1.0, -9));  // e4m3 subnormal spacing
}

// A row whose largest magnitude is 8 (bf16 spacing 1/16 there), with distances 0, 1, 2, 3, 5,
// a fraction of one row-ulp (rounded up to 1), an identical negative value and -0 for +0.
struct HandRow {
  std::vector<float> expected{8.0f, 1.0f, 2.0f, 4.0f, 0.5f, 0.25f, -8.0f, 0.0f};
  std::vector<float> actual{8.0f, 1.0625f, 2.125f, 4.1875f, 0.8125f, 0.2578125f, -8.0f, -0.0f};
};

TEST(FloatTolerance, RowUlpDistancesOfAHandBuiltRow) {
  const HandRow row;
  const auto e = bf16_bytes(row.expected), a = bf16_bytes(row.actual);
  const std::vector<double> d = engine::row_ulp_distances(e.data(), a.data(), 8, 2);
  EXPECT_EQ(d, (std::vector<double>{0, 1, 2, 3, 5, 0.125, 0, 0}));
}

// Why the whole default campaign needs row-ulp:2 for the upstream-like arithmetic (docs/decisions.md):
// with each RoPE product rounded to bf16 before the add (SPEC 6's own example), one rotary pair
// already lands two row-ulps from the recipe. The pair was found by a random search over bf16
// inputs and a table-like (cos, sin); the reference computes the same pair by SPEC 6.
TEST(FloatTolerance, Bf16RoundedRopeProductsReachTwoRowUlpsOnOnePair) {
  const float a = -0.171875f, b = 0.546875f, c = -0.91796875f, s = -0.392578125f;
  std::vector<uint8_t> y = bf16_bytes({a, b});
  const std::vector<uint8_t> cos_sin = bf16_bytes({c, s});
  qsa::rope_neox(reinterpret_cast<Bf16*>(y.data()), 2, 2, {0, 0, 0}, std::nullopt,
                 reinterpret_cast<const Bf16*>(cos_sin.data()));
  auto bf16_round = [](float x) { return float_from_bf16(bf16_from_float(x)); };
  const std::vector<uint8_t> upstream = bf16_bytes(
      {bf16_round(bf16_round(a * c) - bf16_round(b * s)), bf16_round(bf16_round(b * c) + bf16_round(a * s))});
  EXPECT_EQ(engine::row_ulp_distances(y.data(), upstream.data(), 2, 2), (std::vector<double>{0, 2}));
}

TEST(FloatTolerance, HistogramAndWorstElementOfAHandBuiltRow) {
  const HandRow row;
  const auto e = bf16_bytes(row.expected), a = bf16_bytes(row.actual);
  engine::FloatStatistics stats(4);
  engine::FloatWorst where;
  where.request = 3;
  where.position = 17;
  where.head = 1;
  engine::tally_row(stats, e.data(), a.data(), 8, 2, where);
  EXPECT_EQ(engine::row_ulp_bin_labels(4), (std::vector<std::string>{"0", "1", "2", "3-4", ">4"}));
  EXPECT_EQ(stats.histogram, (std::vector<int64_t>{3, 2, 1, 1, 1}));  // 8, -8, +-0 | 1, 0.25 | 2 | 3 | 5
  EXPECT_EQ(stats.elements, 8);
  EXPECT_EQ(stats.identical, 2);  // -0 for +0 is within 0 row-ulps but not bit-identical
  EXPECT_EQ(stats.beyond, 1);
  EXPECT_DOUBLE_EQ(stats.identical_share(), 0.25);
  EXPECT_EQ(stats.worst.distance, 5);
  EXPECT_EQ(stats.worst.element, 4);
  EXPECT_EQ(stats.worst.request, 3);
  EXPECT_EQ(stats.worst.position, 17);
  EXPECT_EQ(stats.worst.head, 1);
  EXPECT_EQ(stats.worst.expected, "0x3f00 (0.5)");
  EXPECT_EQ(stats.worst.actual, "0x3f50 (0.8125)");
  const nlohmann::json j = engine::to_json(stats);
  EXPECT_EQ(j["row_ulp_histogram"][">4"], 1);
  EXPECT_EQ(j["worst"]["distance_row_ulps"], 5.0);
  // Wider N: bins 0, 1, 2, 3-4, 5-8, 9-10, >10; the 5 lands in 5-8.
  EXPECT_EQ(engine::row_ulp_bin_labels(10), (std::vector<std::string>{"0", "1", "2", "3-4", "5-8", "9-10", ">10"}));
  EXPECT_EQ(engine::row_ulp_bin(5, 10), 4u);
  EXPECT_EQ(engine::row_ulp_bin(11, 10), 6u);
}

// Bit-identical rows take a shortcut (no per-element distances): the counts must be what the
// element-by-element path gives, and the worst element must stay the real one.
TEST(FloatTolerance, BitIdenticalRowsCountAsTheElementPathWouldCount) {
  const HandRow row;
  const auto e = bf16_bytes(row.expected), a = bf16_bytes(row.actual);
  engine::FloatStatistics stats(4);
  engine::tally_row(stats, e.data(), e.data(), 8, 2, {});  // the first row, identical
  EXPECT_EQ(stats.worst.distance, 0);                      // names an element (distance 0)
  engine::tally_row(stats, e.data(), a.data(), 8, 2, {});  // the hand row
  engine::tally_row(stats, e.data(), e.data(), 8, 2, {});  // identical again: the shortcut
  EXPECT_EQ(stats.elements, 24);
  EXPECT_EQ(stats.identical, 18);
  EXPECT_EQ(stats.histogram, (std::vector<int64_t>{19, 2, 1, 1, 1}));
  EXPECT_EQ(stats.worst.distance, 5);

  const traces::FloatTolerance n1{traces::FloatTolerance::Mode::kRowUlp, 1};
  const auto comparator = engine::make_float_comparator(n1);
  EXPECT_TRUE(comparator->accepts_row(e.data(), e.data(), 8, 2));
  EXPECT_FALSE(comparator->accepts_row(e.data(), a.data(), 8, 2));
}

TEST(FloatTolerance, ComparatorAcceptsUpToNRowUlpsAndNamesTheFirstBeyond) {
  const HandRow row;
  const auto e = bf16_bytes(row.expected), a = bf16_bytes(row.actual);
  const CacheLayout one_row = CacheLayout::dense(1, 1, 8, 2);
  const auto at4 = engine::make_float_comparator(row_ulp(4))->compare(one_row, e, a);
  ASSERT_TRUE(at4.has_value());
  EXPECT_EQ(at4->first_byte, 8);  // element 4
  EXPECT_EQ(at4->count, 1);
  EXPECT_EQ(at4->distance, 5);
  EXPECT_FALSE(engine::make_float_comparator(row_ulp(5))->compare(one_row, e, a).has_value());
  EXPECT_TRUE(engine::exact_float_comparator().compare(one_row, e, a).has_value());
  EXPECT_FALSE(engine::make_float_comparator(row_ulp(4))->accepts_row(e.data(), a.data(), 8, 2));
  EXPECT_TRUE(engine::make_float_comparator(row_ulp(5))->accepts_row(e.data(), a.data(), 8, 2));
}

TEST(FloatTolerance, RowsHoldingInfOrNanMeasureTheirFiniteElementsAtTheLargestFiniteMagnitude) {
  const float inf = INFINITY;
  const auto comparator = engine::make_float_comparator(row_ulp(1000));
  const auto one_ulp = engine::make_float_comparator(row_ulp(1));
  const auto exact_ulps = engine::make_float_comparator(row_ulp(0));
  // NaN matches NaN of any payload; the other elements of that row (a NaN weight makes one element
  // of every row NaN) are ordinary results, measured at the row's largest finite magnitude.
  auto e = bf16_bytes({1.0f, 2.0f, 0.25f}), a = bf16_bytes({1.0f, 2.0f, 0.25f});
  e[1] = 0x7F, e[0] = 0xFF;  // element 0: NaN 0x7FFF
  a[1] = 0x7F, a[0] = 0xC1;  // element 0: NaN 0x7FC1
  EXPECT_TRUE(comparator->accepts_row(e.data(), a.data(), 3, 2));
  a = bf16_bytes({1.0f, 2.015625f, 0.25f});  // one row-ulp (2^-6 at 2.0) next to the NaN
  a[1] = 0x7F, a[0] = 0xC1;
  EXPECT_TRUE(one_ulp->accepts_row(e.data(), a.data(), 3, 2));
  EXPECT_FALSE(exact_ulps->accepts_row(e.data(), a.data(), 3, 2));
  EXPECT_EQ(engine::row_ulp_distances(e.data(), a.data(), 3, 2), (std::vector<double>{0, 1, 0}));
  a = bf16_bytes({1.0f, 2.0f, 0.28125f});  // two row-ulps on the small element
  a[1] = 0x7F, a[0] = 0xC1;
  EXPECT_FALSE(one_ulp->accepts_row(e.data(), a.data(), 3, 2));
  // A finite element where the reference has NaN, or NaN where it is finite, is never within.
  EXPECT_FALSE(comparator->accepts_row(e.data(), bf16_bytes({1.0f, 2.0f, 0.25f}).data(), 3, 2));
  // An infinity must stay that infinity.
  EXPECT_FALSE(
      comparator->accepts_row(bf16_bytes({inf, 1.0f}).data(), bf16_bytes({std::ldexp(1.0f, 127), 1.0f}).data(), 2, 2));
  EXPECT_TRUE(comparator->accepts_row(bf16_bytes({-inf, 1.0f}).data(), bf16_bytes({-inf, 1.0f}).data(), 2, 2));
  // A NaN or an infinity where the reference row is finite is never within a tolerance.
  EXPECT_FALSE(comparator->accepts_row(bf16_bytes({1.0f, 2.0f}).data(), bf16_bytes({1.0f, inf}).data(), 2, 2));
}

TEST(FloatTolerance, Fp8RowsUseTheE4m3SpacingAtTheRowMaximum) {
  // 448 = 0x7E, 416 = 0x7D (one e4m3 ulp of 32 below), 1 = 0x38, 1.125 = 0x39, 2 = 0x40.
  const std::vector<uint8_t> expected{0x7E, 0x38};
  EXPECT_EQ(engine::row_ulp_distances(expected.data(), std::vector<uint8_t>{0x7D, 0x38}.data(), 2, 1),
            (std::vector<double>{1, 0}));
  EXPECT_EQ(engine::row_ulp_distances(expected.data(), std::vector<uint8_t>{0x7E, 0x40}.data(), 2, 1),
            (std::vector<double>{0, 1.0 / 32}));
  // e4m3fn has no infinity: 0x7F is its NaN, matched by 0xFF (a NaN of the other sign).
  EXPECT_EQ(engine::row_ulp_distances(std::vector<uint8_t>{0x7F}.data(), std::vector<uint8_t>{0xFF}.data(), 1, 1),
            (std::vector<double>{0}));
}

TEST(FloatTolerance, FlagValues) {
  EXPECT_EQ(traces::parse_float_tolerance("exact"), FloatTolerance{});
  EXPECT_EQ(traces::parse_float_tolerance("row-ulp:3"), row_ulp(3));
  EXPECT_EQ(traces::parse_float_tolerance("row-ulp:0"), row_ulp(0));
  for (const char* bad : {"", "row-ulp:", "row-ulp:-1", "row-ulp:1x", "ulp:1", "row-ulp:99999999", "ROW-ULP:1"})
    EXPECT_FALSE(traces::parse_float_tolerance(bad).has_value()) << bad;
  EXPECT_EQ(row_ulp(2).to_string(), "row-ulp:2");
}

TEST(FloatTolerance, ScenarioFilesStateTheirTolerance) {
  const traces::Scenario s = testing::hand_scenario();
  std::stringstream with;
  traces::write_scenario(with, s, {}, row_ulp(2));
  EXPECT_NE(with.str().find("\"float_tolerance\":\"row-ulp:2\""), std::string::npos);
  EXPECT_EQ(traces::read_scenario(with).float_tolerance, row_ulp(2));
  std::stringstream exact;
  traces::write_scenario(exact, s);
  EXPECT_EQ(exact.str().find("float_tolerance"), std::string::npos);  // exact files keep their bytes
  EXPECT_EQ(traces::read_scenario(exact).float_tolerance, FloatTolerance{});
  std::string text = with.str();
  text.replace(text.find("row-ulp:2"), 9, "row-ulp:z");
  std::stringstream bad(text);
  try {
    traces::read_scenario(bad);
    FAIL() << "an invalid float_tolerance was read";
  } catch (const InputError& e) {
    EXPECT_EQ(e.error().field, "float_tolerance");
    EXPECT_EQ(e.error().rule, "invalid-tolerance");
  }
}

// ---- end to end, on the upstream-like backend ----

// The upstream-like backend, with the planted bug `bug` ("bug:NAME") or none ("").
std::unique_ptr<Backend> upstream_like(const std::string& bug = "") {
  auto backend = backends::make_planted_backend(bug.empty() ? std::string(backends::kUpstreamLikeBackend)
                                                            : std::string(backends::kUpstreamLikeBackend) + "+" + bug);
  EXPECT_NE(backend, nullptr) << bug;
  return backend;
}

// The planted CPU bug of that name (its `needs`).
backends::PlantedBug planted(const std::string& name) {
  for (const backends::PlantedBug& bug : backends::planted_cpu_bugs())
    if (bug.name == name) return bug;
  ADD_FAILURE() << name << " is no planted CPU bug";
  return {name, "", ""};
}

std::optional<engine::RunFailure> run(const traces::Scenario& s, const std::string& bug, FloatTolerance tolerance,
                                      engine::StepFloatStatistics* stats = nullptr) {
  auto backend = upstream_like(bug);
  engine::RunOptions options;
  options.float_tolerance = tolerance;
  options.float_statistics = stats;
  return engine::run_scenario(s, *backend, options);
}

// The CI subset: the first 60 steps of one scenario of every workload (seed 1). The default
// campaign itself is `qsacheck check --backend upstream-like --float-tolerance row-ulp:N`.
std::vector<traces::Scenario> workload_subset() {
  std::vector<traces::Scenario> scenarios;
  for (const std::string& name : traces::workload_names())
    scenarios.push_back(traces::simulate(traces::workload_by_name(name), 1, 60));
  return scenarios;
}

TEST(FloatTolerance, UpstreamLikeArithmeticFailsExactAndPassesTheTolerance) {
  int64_t exact_failures = 0;
  engine::StepFloatStatistics stats(kUpstreamLikeUlps);
  for (const traces::Scenario& s : workload_subset()) {
    const auto exact = run(s, "", FloatTolerance{});
    if (exact) {  // the Q path (the oracle) or the differential sees it first
      ++exact_failures;
      EXPECT_TRUE(exact->check == engine::Check::kQPath || exact->check == engine::Check::kStepDifferential ||
                  exact->check == engine::Check::kCompressedRow)
          << engine::to_string(*exact);
    }
    const auto tolerant = run(s, "", row_ulp(kUpstreamLikeUlps), &stats);
    EXPECT_FALSE(tolerant.has_value()) << s.config.workload << ": " << engine::to_string(*tolerant);
  }
  EXPECT_EQ(exact_failures, static_cast<int64_t>(traces::workload_names().size()));
  for (const engine::FloatStatistics* output : {&stats.compressed, &stats.q_out}) {
    EXPECT_GT(output->elements, 0);
    EXPECT_EQ(output->beyond, 0);
    EXPECT_LT(output->identical, output->elements);  // the mode measured differences ...
    EXPECT_GT(output->identical_share(), 0.5);       // ... on a minority of the elements
    EXPECT_GT(output->histogram[1], 0);              // some at one row-ulp
  }
  std::printf("upstream-like under row-ulp:%lld:\n  %s\n  %s\n", static_cast<long long>(kUpstreamLikeUlps),
              stats.compressed.to_string("compressed cache").c_str(), stats.q_out.to_string("q_out").c_str());
}

// Each real bug on top of the upstream-like arithmetic is still caught within 1 and 4 row-ulps.
struct PlantedUnderTolerance {
  const char* bug;  // "bug:NAME"
  const char* what;
};

class UpstreamLikeWithABug : public ::testing::TestWithParam<PlantedUnderTolerance> {};

TEST_P(UpstreamLikeWithABug, FailsAtRowUlp2AndRowUlp4) {
  const backends::PlantedBug info = planted(GetParam().bug);
  const traces::Scenario s = testing::hand_scenario(info.needs == "mrope");
  // The control: the same arithmetic without the bug passes this scenario at its tolerance.
  const auto control = run(s, "", row_ulp(kUpstreamLikeUlps));
  ASSERT_FALSE(control.has_value()) << engine::to_string(*control);
  for (int64_t n : {kUpstreamLikeUlps, int64_t{4}}) {
    const auto failure = run(s, GetParam().bug, row_ulp(n));
    ASSERT_TRUE(failure.has_value()) << GetParam().what << " (" << info.name << ") passed row-ulp:" << n;
    EXPECT_FALSE(failure->invalid_scenario) << engine::to_string(*failure);
    if (failure->check == engine::Check::kStepDifferential) {
      EXPECT_NE(failure->message.find("row-ulp:" + std::to_string(n)), std::string::npos) << failure->message;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Bugs, UpstreamLikeWithABug,
                         ::testing::Values(PlantedUnderTolerance{"bug:rope-sign-slip", "a RoPE sign slip"},
                                           PlantedUnderTolerance{"bug:group-position-ignores-ring-tail",
                                                                 "a group rotated at the wrong position"},
                                           PlantedUnderTolerance{"bug:skips-first-closed-group", "a skipped group"},
                                           PlantedUnderTolerance{"bug:pool-wrong-ring-row", "a stale ring row"},
                                           PlantedUnderTolerance{"bug:wrong-mrope-axis", "a wrong MRoPE axis"}),
                         [](const ::testing::TestParamInfo<PlantedUnderTolerance>& param) {
                           std::string name = std::string(param.param.bug).substr(4);  // without "bug:"
                           for (char& ch : name)
                             if (ch == '-') ch = '_';
                           return name;
                         });

// The shrinker in tolerance mode: a smaller scenario that still exceeds N row-ulps.
TEST(FloatTolerance, ShrinkingKeepsTheTolerance) {
  const std::string name = "bug:rope-sign-slip";
  const traces::Scenario failing = traces::simulate(traces::workload_by_name("default"), 3, 40);
  auto backend = BackendRegistry::global().create(name);
  engine::RunOptions options;
  options.float_tolerance = row_ulp(4);
  const auto failure = engine::run_scenario(failing, *backend, options);
  ASSERT_TRUE(failure.has_value());
  const traces::Scenario small = engine::shrink_scenario(
      failing, engine::fails_the_same_way([&] { return BackendRegistry::global().create(name); }, *failure, row_ulp(4)),
      100);
  EXPECT_LE(small.steps.size(), failing.steps.size());
  const auto again = engine::run_scenario(small, *BackendRegistry::global().create(name), options);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->check, failure->check);
}

// A recorded trace replayed in tolerance mode: the float digests that differ are judged by the
// differential against the recomputed reference; every other output's digest must still match.
TEST(FloatTolerance, RecordedDigestsAreJudgedThroughTheComparator) {
  const traces::ScenarioFile file =
      traces::read_scenario_file(std::string(QSA_RECORDED_TRACES_DIR) + "/default.scenario");
  ASSERT_FALSE(file.digests.empty());
  auto backend = upstream_like();
  engine::RunOptions options;
  options.expected_digests = &file.digests;
  options.float_tolerance = row_ulp(kUpstreamLikeUlps);
  EXPECT_FALSE(engine::run_scenario(file.scenario, *backend, options).has_value());
  // A wrong recorded ring digest is still a failure in tolerance mode.
  std::vector<traces::StepDigest> tampered = file.digests;
  tampered.back().set("cache.ring", *tampered.back().find("cache.ring") ^ 1u);
  options.expected_digests = &tampered;
  const auto failure = engine::run_scenario(file.scenario, *backend, options);
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->check, engine::Check::kDigest);
  EXPECT_NE(failure->message.find("cache.ring"), std::string::npos) << failure->message;
}

}  // namespace
}  // namespace qsa
