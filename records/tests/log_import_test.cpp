// The importer of old GPU-run text: hand-written snippets in the formats run_gpu.sh and the benchmark
// binaries print, and the repository's own GPU run logs (fixtures/) cross-checked against their summary.

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "qsa/records/benchmark_name.hpp"
#include "qsa/records/comparison.hpp"
#include "qsa/records/log_import.hpp"
#include "qsa/input_error.hpp"

namespace qsa::records {
namespace {

const char* kSummary = R"(qsacheck GPU bundle run, 2026-11-30T15:34:05Z
NVIDIA H200, 580.159.04, 360 MHz, 3201 MHz, 37, 0 %
qsacheck 0.1.0 (SPEC version 1, commit c33ba7567063, CUDA support built)
PASS     step_update_bench (53s)
Summary: time per step (median, microseconds), bandwidth counting the bytes that must move
copy ceiling 3.95 TB/s, empty-kernel floor 0.67 us
shape    dtype          N    NR      ours  baseline reference     TB/s  of copy base/ours
decode   bf16         256    64      5.64     13.03     871.7     0.12       3%      2.31
mixed    bf16        8192  1024      9.80     55.94         -     2.14      54%      5.71

Summary: time per step (median), microseconds; ours/floor target <= 2
shape    kind               N     NR reference_cpu    baseline      ours     floor ours/floor
decode   compressed       256     64          4.73        4.33      2.13      0.68       3.15

Other GPU measurements (median, microseconds per launch)
)";

const ImportedRecord& find(const std::vector<ImportedRecord>& records, const std::string& binary) {
  for (const ImportedRecord& r : records)
    if (r.binary == binary) return r;
  throw std::runtime_error("no record of " + binary);
}

double median_of(const Record& record, const std::string& key) {
  for (const BenchmarkTimes& b : benchmark_times(record))
    if (b.key == key) return b.median_ns;
  return -1;
}

TEST(LogImport, ASummaryGivesOneImportedRecordPerBenchmarkTable) {
  const auto records = import_gpu_run({"run-summary.txt", kSummary}, {}, "");
  ASSERT_EQ(records.size(), 2u);
  const Record& step = find(records, "step_update_bench").record;
  EXPECT_EQ(step.provenance, Provenance::kImported);
  EXPECT_EQ(step.context_text("qsacheck_record"), "imported");
  EXPECT_EQ(step.context_text("gpu_name"), "NVIDIA H200");
  EXPECT_EQ(step.context_text("gpu_driver"), "580.159.04");
  EXPECT_EQ(step.context_text("gpu_sm_clock_mhz_start"), "360");
  EXPECT_EQ(step.context_text("qsacheck_commit"), "c33ba7567063");
  EXPECT_EQ(step.context_text("spec_version"), "1");
  EXPECT_EQ(step.context_text("date"), "2026-11-30T15:34:05+00:00");
  EXPECT_EQ(step.context_text("floor_us"), "0.67");
  EXPECT_EQ(step.context_text("copy_ceiling_bytes_per_second"), "3950000000000");
  EXPECT_DOUBLE_EQ(median_of(step, "BM_StepUpdate/cuda/shape:decode/tokens:256/requests:64/dtype:bf16"), 5640);
  EXPECT_DOUBLE_EQ(median_of(step, "BM_StepUpdate/baseline/shape:mixed/tokens:8192/requests:1024/dtype:bf16"), 55940);
  EXPECT_EQ(median_of(step, "BM_StepUpdate/reference/shape:mixed/tokens:8192/requests:1024/dtype:bf16"), -1)
      << "a '-' cell is no benchmark";
  for (const BenchmarkTimes& b : benchmark_times(step)) EXPECT_TRUE(b.repetitions.empty()) << b.key;
  const Record& metadata = find(records, "metadata_bench").record;
  EXPECT_DOUBLE_EQ(median_of(metadata, "BM_Metadata/reference/kind:compressed/tokens:256/requests:64"), 4730);
  EXPECT_DOUBLE_EQ(median_of(metadata, "BM_Floor/empty_kernel"), 680);
}

TEST(LogImport, TheCommitGivenOverridesTheSummary) {
  const auto records = import_gpu_run({"s.txt", kSummary}, {}, "42d4ff9");
  EXPECT_EQ(records[0].record.context_text("qsacheck_commit"), "42d4ff9");
}

TEST(LogImport, AConsoleLogGivesEveryAggregateWithItsCounters) {
  const std::string log =
      "=== step_update_bench (13:04:06, budget 200s): ./step_update_bench --benchmark_out=x.json\n"
      "2026-11-30T13:04:07+00:00\n"
      "device: NVIDIA H200 (sm_90, 132 SMs)\n"
      "Benchmark      Time             CPU   Iterations bytes_per_second\n"
      "BM_Copy/kernel/iterations:30/repeats:5/manual_time_median     543 us   2181 us   5   3.59407T/s\n"
      "BM_Copy/kernel/iterations:30/repeats:5/manual_time_cv        0.13 %    0.22 %   5      0.10%\n"
      "BM_Floor/empty_kernel/iterations:30/repeats:5/manual_time_median  0.702 us   149 us   5   0/s\n"
      "BM_StepUpdate/cuda/shape:decode/tokens:256/requests:64/dtype:bf16/iterations:30/repeats:5/manual_time_median"
      "   8.26 us   2122 us   5   79.3938G/s\n";
  const auto records = import_gpu_run({"s.txt", kSummary}, {{"step.log", log}}, "");
  const Record& step = find(records, "step_update_bench").record;
  EXPECT_EQ(step.context_text("date"), "2026-11-30T13:04:07+00:00") << "the log's own date wins";
  EXPECT_EQ(step.context_text("gpu_sm_count"), "132");
  EXPECT_EQ(step.context_text("floor_us"), "0.702");
  // Google Benchmark 1.7 prints bytes in powers of 1024: 3.59407 * 2^40.
  EXPECT_EQ(step.context_text("copy_ceiling_bytes_per_second"),
            std::to_string(std::llround(3.59407 * 1099511627776.0)));
  EXPECT_DOUBLE_EQ(median_of(step, "BM_StepUpdate/cuda/shape:decode/tokens:256/requests:64/dtype:bf16"), 8260);
  EXPECT_EQ(step.entries.size(), 4u);
  EXPECT_EQ(step.entries[1].aggregate_name, "cv");
  EXPECT_DOUBLE_EQ(step.entries[1].real_time_ns, 0.0013) << "a cv is a fraction";
  EXPECT_EQ(find(records, "metadata_bench").record.entries.size(), 4u) << "the summary's table still gives metadata";
}

TEST(LogImport, TextWithoutATableIsAnError) {
  try {
    (void)import_gpu_run({"s.txt", "PASS gpu_device_tests\n"}, {}, "");
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.error(), (Error{"summary", -1, "no-benchmarks", ""}));
  }
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The repository's 13:01 run: its console logs and its summary table were printed by different code
// (the console reporter, print_summary) from the same medians; the two importers must agree.
TEST(LogImport, TheRepositoryLogsAgreeWithTheirSummaryTable) {
  const std::string dir = std::string(QSA_SOURCE_DIR) + "/records/tests/fixtures/";
  const TextFile summary{"summary", read_text(dir + "2026-11-30-final-summary.txt")};
  ASSERT_FALSE(summary.text.empty());
  const auto from_logs = import_gpu_run(summary, {{"step", read_text(dir + "2026-11-30-step-bench.log")}}, "");
  const auto from_table = import_gpu_run(summary, {}, "");
  const Record& logged = find(from_logs, "step_update_bench").record;
  const Record& tabled = find(from_table, "step_update_bench").record;
  int compared = 0;
  for (const BenchmarkTimes& t : benchmark_times(tabled)) {
    const double from_log = median_of(logged, t.key);
    ASSERT_GT(from_log, 0) << t.key << " is in the summary table but not in the log";
    // The table rounds to 0.01 us (ours, baseline) or 0.1 us (reference); the console to 3 digits.
    EXPECT_NEAR(from_log, t.median_ns, std::max(10.0, 0.006 * t.median_ns)) << t.key;
    ++compared;
  }
  EXPECT_EQ(compared, 14 * 2 + 6 + 1) << "cuda and baseline for 14 shapes, reference for 6, the floor";
  EXPECT_NEAR(std::atof(logged.context_text("copy_ceiling_bytes_per_second").c_str()), 3.95e12, 0.01e12);
}

// records/history/ holds what `bench import` writes from the logs in records/tests/fixtures/ (the
// commands are in docs/bench-records.md): a change of the importer shows here, not silently in the history.
TEST(LogImport, TheCommittedRecordsAreWhatTheImporterWrites) {
  const std::string root = std::string(QSA_SOURCE_DIR) + "/";
  const auto file = [&](const std::string& path) { return TextFile{path, read_text(root + path)}; };
  struct Run {
    std::string stem, commit;
    std::vector<std::string> logs;
  };
  const std::string logs_dir = "records/tests/fixtures/";
  const std::vector<Run> runs = {
      {"2026-11-30-final",
       "1ae7062",
       {logs_dir + "2026-11-30-step-bench.log", logs_dir + "2026-11-30-metadata-bench.log"}},
      {"2026-11-30-step-v5", "42d4ff9", {}},
      {"2026-11-30-final-v5", "", {}},
      {"2026-12-01-kspeed-round1", "", {logs_dir + "2026-12-01-kspeed-round1-tests-bench.log"}},
      {"2026-12-01-kspeed-round1-final", "49a514f", {logs_dir + "2026-12-01-kspeed-round1-final-tests-bench.log"}}};
  for (const Run& run : runs) {
    std::vector<TextFile> logs;
    for (const std::string& log : run.logs) logs.push_back(file(log));
    const std::string summary = logs_dir + run.stem + "-summary.txt";
    const bool has_summary = run.stem.rfind("2026-11-30", 0) == 0;  // the 12-01 runs are logs only
    for (const ImportedRecord& r : import_gpu_run(has_summary ? file(summary) : TextFile{}, logs, run.commit)) {
      const std::string committed = "records/history/" + run.stem + "-" + r.binary + ".json";
      EXPECT_EQ(record_to_json(r.record).dump(2) + "\n", read_text(root + committed))
          << committed << " differs from what `qsacheck bench import` writes";
    }
  }
}

TEST(BenchmarkKey, DropsGoogleBenchmarksRunOptionsOnly) {
  EXPECT_EQ(benchmark_key("BM_Floor/empty_kernel/iterations:50/repeats:5/manual_time"), "BM_Floor/empty_kernel");
  EXPECT_EQ(
      benchmark_key("BM_StepUpdate/reference/shape:decode/tokens:256/requests:64/dtype:bf16/min_time:0.200/repeats:5"),
      "BM_StepUpdate/reference/shape:decode/tokens:256/requests:64/dtype:bf16");
  EXPECT_EQ(benchmark_key("BM_X/threads:8/real_time"), "BM_X");
  const BenchmarkName name = split_benchmark_name("BM_Metadata/cuda/kind:ring/tokens:256/requests:64");
  EXPECT_EQ(name.family, "BM_Metadata");
  EXPECT_EQ(name.backend, "cuda");
  EXPECT_EQ(name.arg("tokens"), "256");
  EXPECT_EQ(name.arg("kind"), "ring");
}

}  // namespace
}  // namespace qsa::records
