// The record `qsacheck bench` writes, from measurements made up here: every repetition and its
// aggregates, a benchmark that was not timed as an error entry, the run's floor and copy ceiling
// in the context, and a file `bench compare` reads.

#include <gtest/gtest.h>

#include "bench_record.hpp"
#include "qsa/records/comparison.hpp"

namespace qsa::cli {
namespace {

timing::Measurement timed(const std::string& name, std::vector<double> seconds, int64_t bytes) {
  timing::Measurement m;
  m.name = name;
  m.host_seconds.assign(seconds.size(), 1e-7);
  m.seconds = std::move(seconds);
  m.iterations = 30;
  m.launches = 20;
  m.bytes_per_launch = bytes;
  return m;
}

std::vector<timing::Measurement> measurements() {
  const std::string shape = "shape:decode/tokens:4096/requests:1024/dtype:bf16";
  std::vector<timing::Measurement> all;
  all.push_back(timed("BM_StepUpdate/cuda/" + shape, {8e-6, 7e-6, 9e-6}, 4000000));
  timing::Measurement failed;
  failed.name = "BM_StepUpdate/cuda/shape:prefill/tokens:16384/requests:4/dtype:bf16";
  failed.not_timed = "disagrees with the reference: q-path q_out";
  failed.disagreement = true;
  all.push_back(failed);
  all.push_back(timed(timing::kFloorName, {0.6e-6, 0.7e-6, 0.8e-6}, 0));
  all.push_back(timed(timing::kCopyName, {1.0 / 1024, 1.1 / 1024, 0.9 / 1024}, int64_t{2} << 30));
  all.push_back(timed(timing::kCopyKernelName, {2.0e-3, 2.0e-3, 2.0e-3}, int64_t{2} << 30));
  return all;
}

TEST(BenchRecord, RepetitionsAggregatesErrorsAndTheRunsReferences) {
  BenchRunContext context;
  context.gpu.name = "NVIDIA H200";
  context.gpu.sm_count = 132;
  context.gpu.sm_clock_mhz = 1980;
  context.sm_clock_mhz_end = 1755;
  context.backend = "cuda";
  context.command_line = "qsacheck bench --backend cuda";
  const records::Record record = bench_record(measurements(), 3, context);
  // 4 timed benchmarks x (3 repetitions + 4 aggregates) + 1 error entry.
  ASSERT_EQ(record.entries.size(), 4u * 7 + 1);
  EXPECT_EQ(record.entries[0].run_name,
            "BM_StepUpdate/cuda/shape:decode/tokens:4096/requests:1024/dtype:bf16/iterations:30/repeats:3/manual_time");
  EXPECT_DOUBLE_EQ(record.entries[0].real_time_ns, 8000);
  EXPECT_DOUBLE_EQ(record.entries[0].counters.at("bytes_per_second"), 4000000 / 8e-6);
  EXPECT_DOUBLE_EQ(record.entries[4].real_time_ns, 8000);  // the median aggregate
  const records::Entry& error = record.entries[7];
  EXPECT_TRUE(error.error);
  EXPECT_NE(error.error_message.find("disagrees"), std::string::npos);
  EXPECT_EQ(record.context_text("gpu_name"), "NVIDIA H200");
  EXPECT_EQ(record.context_text("gpu_sm_count"), "132");
  EXPECT_EQ(record.context_text("gpu_sm_clock_mhz_start"), "1980");
  EXPECT_EQ(record.context_text("gpu_sm_clock_mhz_end"), "1755");
  EXPECT_EQ(record.context_text("gpu_mem_clock_mhz_start"), "");  // unknown: left out
  EXPECT_EQ(record.context_text("qsacheck_record"), "measured");
  EXPECT_EQ(record.context_text("backend"), "cuda");
  EXPECT_DOUBLE_EQ(std::stod(record.context_text("floor_us")), 0.7);
  // The faster copy: 2^31 bytes in a median 2^-10 s.
  EXPECT_EQ(record.context_text("copy_ceiling_bytes_per_second"), std::to_string(int64_t{1} << 41));
}

TEST(BenchRecord, TheWrittenRecordIsOneCompareReads) {
  const records::Record record = bench_record(measurements(), 3, BenchRunContext{});
  const records::Record back =
      records::parse_record(nlohmann::json::parse(records::record_to_json(record).dump(2)), "candidate", "bench-record.json");
  EXPECT_EQ(back.schema_version, records::kSchemaVersion);
  EXPECT_EQ(back.provenance, records::Provenance::kMeasured);
  const records::Comparison same = records::compare_records(back, back, records::CompareOptions{});
  EXPECT_EQ(same.regressions, 0);
}

}  // namespace
}  // namespace qsa::cli
