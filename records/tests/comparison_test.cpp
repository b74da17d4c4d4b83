// `bench compare` on records generated here: a real regression is flagged, noise within the spread
// is not, one slowdown among many is found for its benchmark, a renamed benchmark is missing.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "qsa/records/comparison.hpp"
#include "qsa/records/record.hpp"
#include "qsa/input_error.hpp"
#include "record_builder.hpp"

namespace qsa::records {
namespace {

using testing::build_record;
using testing::BuiltBenchmark;
using testing::h200_context;
using testing::noisy_times;

const std::vector<std::string> kShapes = {
    "shape:decode/tokens:256/requests:64/dtype:bf16",       "shape:decode/tokens:1024/requests:256/dtype:bf16",
    "shape:decode/tokens:4096/requests:1024/dtype:bf16",    "shape:mixed/tokens:8192/requests:1024/dtype:bf16",
    "shape:prefill/tokens:8192/requests:2/dtype:bf16",      "shape:prefill/tokens:16384/requests:4/dtype:bf16",
    "shape:prefill/tokens:65536/requests:16/dtype:bf16",    "shape:decode/tokens:256/requests:64/dtype:fp8_e4m3",
    "shape:decode/tokens:1024/requests:256/dtype:fp8_e4m3", "shape:mixed/tokens:8192/requests:1024/dtype:fp8_e4m3"};

// Every shape at `base` microseconds (+ 1 per shape), 9 repetitions spread by +-1 %; `slower`
// multiplies one shape's times.
Record run(uint64_t seed, const std::string& slow_shape = "", double slower = 1,
           const nlohmann::json& context = h200_context()) {
  std::vector<BuiltBenchmark> benchmarks;
  for (size_t i = 0; i < kShapes.size(); ++i) {
    std::vector<double> times = noisy_times(5.0 + static_cast<double>(i), 0.01, 9, seed * 100 + i);
    if (kShapes[i] == slow_shape)
      for (double& t : times) t *= slower;
    benchmarks.push_back(
        BuiltBenchmark{"BM_StepUpdate/cuda/" + kShapes[i] + "/iterations:30/repeats:9/manual_time", times, 0});
  }
  return parse_record(build_record(benchmarks, context), "record", "seed-" + std::to_string(seed));
}

const BenchmarkChange& change_of(const Comparison& c, const std::string& shape) {
  const auto it = std::find_if(c.changes.begin(), c.changes.end(),
                               [&](const BenchmarkChange& x) { return x.key == "BM_StepUpdate/cuda/" + shape; });
  if (it == c.changes.end()) throw std::runtime_error("no change for " + shape);
  return *it;
}

TEST(BenchCompare, NoiseWithinTheSpreadIsNotARegression) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const Comparison c = compare_records(run(seed), run(seed + 1000), CompareOptions{});
    EXPECT_EQ(c.regressions, 0) << "seeds " << seed << " and " << seed + 1000;
    EXPECT_EQ(c.changes.size(), kShapes.size());
    EXPECT_NEAR(c.geomean_ratio, 1.0, 0.01) << "seed " << seed;
    EXPECT_TRUE(c.warnings.empty()) << c.warnings.front();
  }
}

TEST(BenchCompare, AnEightPercentSlowdownOfOneShapeAmongManyIsFlaggedForThatShapeOnly) {
  const std::string slow = kShapes[3];
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    const Comparison c = compare_records(run(seed), run(seed + 1000, slow, 1.08), CompareOptions{});
    EXPECT_EQ(c.regressions, 1) << "seed " << seed;
    const BenchmarkChange& flagged = change_of(c, slow);
    EXPECT_EQ(flagged.verdict, Verdict::kRegression) << "seed " << seed;
    EXPECT_NEAR(flagged.change, 0.08, 0.03);
    EXPECT_LT(flagged.p_value, 0.05);
    // The geometric mean moves by under 1 %: a mean-only gate would miss it.
    EXPECT_LT(c.geomean_ratio, 1.012) << "seed " << seed;
  }
}

TEST(BenchCompare, ARealRegressionEverywhereIsFlaggedEverywhere) {
  std::vector<BuiltBenchmark> slower;
  const Record base = run(7);
  Record cand = run(8);
  for (Entry& e : cand.entries) e.real_time_ns *= 1.3;
  const Comparison c = compare_records(base, cand, CompareOptions{});
  EXPECT_EQ(c.regressions, static_cast<int>(kShapes.size()));
  EXPECT_NEAR(c.geomean_ratio, 1.3, 0.02);
}

TEST(BenchCompare, ASignificantChangeBelowTheThresholdIsNotARegression) {
  const Comparison c = compare_records(run(3), run(1003, kShapes[0], 1.04), CompareOptions{});
  EXPECT_EQ(c.regressions, 0);
  EXPECT_LT(change_of(c, kShapes[0]).p_value, 0.05) << "4 % against a 1 % spread is significant";
  CompareOptions strict;
  strict.threshold = 0.02;
  EXPECT_EQ(compare_records(run(3), run(1003, kShapes[0], 1.04), strict).regressions, 1);
}

TEST(BenchCompare, AFasterCandidateIsNotARegression) {
  const Comparison c = compare_records(run(3), run(1003, kShapes[5], 0.7), CompareOptions{});
  EXPECT_EQ(c.regressions, 0);
  EXPECT_EQ(change_of(c, kShapes[5]).verdict, Verdict::kFaster);
}

TEST(BenchCompare, ARenamedBenchmarkIsListedAsMissingNotAsFaster) {
  Record cand = run(1002);
  for (Entry& e : cand.entries)
    if (e.run_name.find(kShapes[2]) != std::string::npos) {
      const std::string renamed = "BM_StepUpdate/cuda/shape:decode/tokens:4096/reqs:1024/dtype:bf16";
      e.run_name = renamed;
      e.name = renamed;
      e.real_time_ns /= 2;  // were it matched, it would look twice as fast
    }
  const Comparison c = compare_records(run(2), cand, CompareOptions{});
  EXPECT_EQ(c.missing, std::vector<std::string>{"BM_StepUpdate/cuda/" + kShapes[2]});
  EXPECT_EQ(c.added, std::vector<std::string>{"BM_StepUpdate/cuda/shape:decode/tokens:4096/reqs:1024/dtype:bf16"});
  EXPECT_EQ(c.changes.size(), kShapes.size() - 1);
  for (const BenchmarkChange& x : c.changes) EXPECT_NE(x.verdict, Verdict::kFaster) << x.key;
}

TEST(BenchCompare, MoreRepetitionsStillMatchTheBaseline) {
  // The key drops Google Benchmark's run options (repeats:9 vs repeats:15).
  Record cand = run(1002);
  for (Entry& e : cand.entries) {
    const auto at = e.run_name.find("repeats:9");
    e.run_name.replace(at, 9, "repeats:15");
  }
  EXPECT_EQ(compare_records(run(2), cand, CompareOptions{}).changes.size(), kShapes.size());
}

TEST(BenchCompare, DifferentGpuClocksAndDriverAreWarnings) {
  const Record cand = run(
      1002, "", 1,
      h200_context({{"gpu_name", "NVIDIA H100 80GB HBM3"}, {"gpu_sm_clock_mhz_end", "1500"}, {"gpu_driver", "570.1"}}));
  const Comparison c = compare_records(run(2), cand, CompareOptions{});
  std::string all;
  for (const std::string& w : c.warnings) all += w + "\n";
  EXPECT_NE(all.find("gpu_name differs"), std::string::npos) << all;
  EXPECT_NE(all.find("gpu_sm_clock_mhz_end differs"), std::string::npos) << all;
  EXPECT_NE(all.find("gpu_driver differs"), std::string::npos) << all;
  EXPECT_EQ(all.find("cuda_version"), std::string::npos) << all;
}

TEST(BenchCompare, PlainGoogleBenchmarkJsonIsAcceptedAsUnknownEnvironment) {
  const Record plain = run(1002, "", 1, nlohmann::json{{"date", "2026-12-01T11:00:00+00:00"}});
  EXPECT_EQ(plain.provenance, Provenance::kPlain);
  const Comparison c = compare_records(run(2), plain, CompareOptions{});
  ASSERT_FALSE(c.warnings.empty());
  EXPECT_NE(c.warnings.front().find("unknown environment"), std::string::npos) << c.warnings.front();
  EXPECT_EQ(c.regressions, 0);
}

Error error_of(const Record& baseline, const Record& candidate) {
  try {
    (void)compare_records(baseline, candidate, CompareOptions{});
  } catch (const InputError& e) {
    return e.error();
  }
  return Error{"none", -1, "none", "no error"};
}

TEST(BenchCompare, AnImportedRecordIsRefusedAsBaselineSayingWhy) {
  Record imported = run(2, "", 1, h200_context({{"qsacheck_record", "imported"}}));
  const Error e = error_of(imported, run(3));
  EXPECT_EQ(e, (Error{"baseline", -1, "imported-record", ""})) << to_string(e);
  EXPECT_NE(e.message.find("repetitions"), std::string::npos) << e.message;
}

TEST(BenchCompare, NoCommonBenchmarkIsBadInput) {
  Record other = run(3);
  for (Entry& e : other.entries) e.run_name = "BM_Other/" + e.run_name;
  EXPECT_EQ(error_of(run(2), other), (Error{"candidate", -1, "no-common-benchmarks", ""}));
}

TEST(BenchCompare, SingleRunsWithoutRepetitionsAreBadInputForTheGate) {
  const auto single = [](uint64_t seed) {
    std::vector<BuiltBenchmark> b{{"BM_A", noisy_times(5, 0.01, 1, seed), 0}};
    return parse_record(build_record(b, nlohmann::json::object()), "record", "single");
  };
  EXPECT_EQ(error_of(single(1), single(2)), (Error{"candidate", -1, "too-few-repetitions", ""}));
}

TEST(BenchCompare, FewerThanNineRepetitionsWarn) {
  std::vector<BuiltBenchmark> a{{"BM_A", noisy_times(5, 0.01, 5, 1), 0}}, b{{"BM_A", noisy_times(5, 0.01, 5, 2), 0}};
  const Comparison c =
      compare_records(parse_record(build_record(a, h200_context()), "r", "a"),
                      parse_record(build_record(b, h200_context()), "r", "b"), CompareOptions{});
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("fewer than 9 repetitions"), std::string::npos) << c.warnings[0];
}

}  // namespace
}  // namespace qsa::records
