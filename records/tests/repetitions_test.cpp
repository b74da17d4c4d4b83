// The entries `qsacheck bench` writes: every repetition, then Google Benchmark's four aggregates of
// the times and counters; an error entry; and a round trip through the JSON reader.

#include <gtest/gtest.h>

#include "qsa/records/comparison.hpp"
#include "qsa/records/record.hpp"
#include "qsa/records/repetitions.hpp"

namespace qsa::records {
namespace {

Repetitions three_repetitions() {
  Repetitions run;
  run.run_name =
      "BM_StepUpdate/cuda/shape:decode/tokens:4096/requests:1024/dtype:bf16/iterations:30/repeats:3/manual_time";
  run.real_time_ns = {3000, 1000, 2000};
  run.cpu_time_ns = {30, 10, 20};
  run.iterations = 30;
  run.counters["bytes_per_second"] = {1e12, 3e12, 2e12};
  return run;
}

TEST(Repetitions, EveryRepetitionThenMeanMedianStddevAndCv) {
  const std::vector<Entry> entries = repetition_entries(three_repetitions());
  ASSERT_EQ(entries.size(), 7u);
  for (int r = 0; r < 3; ++r) {
    EXPECT_FALSE(entries[r].aggregate);
    EXPECT_EQ(entries[r].repetition_index, r);
    EXPECT_EQ(entries[r].repetitions, 3);
    EXPECT_EQ(entries[r].iterations, 30);
  }
  EXPECT_DOUBLE_EQ(entries[0].real_time_ns, 3000);
  EXPECT_DOUBLE_EQ(entries[1].counters.at("bytes_per_second"), 3e12);
  // {1000, 2000, 3000}: mean 2000, median 2000, sample standard deviation 1000, cv 0.5.
  const char* names[] = {"mean", "median", "stddev", "cv"};
  const double times[] = {2000, 2000, 1000, 0.5};
  for (int a = 0; a < 4; ++a) {
    const Entry& e = entries[3 + a];
    EXPECT_TRUE(e.aggregate);
    EXPECT_EQ(e.aggregate_name, names[a]);
    EXPECT_EQ(e.name, e.run_name + "_" + names[a]);
    EXPECT_DOUBLE_EQ(e.real_time_ns, times[a]) << names[a];
  }
  EXPECT_DOUBLE_EQ(entries[4].counters.at("bytes_per_second"), 2e12);  // the counters' median
  EXPECT_DOUBLE_EQ(entries[5].cpu_time_ns, 10);                        // the cpu times' stddev
}

TEST(Repetitions, OneRepetitionHasNoAggregates) {
  Repetitions run = three_repetitions();
  run.real_time_ns.resize(1);
  run.cpu_time_ns.resize(1);
  run.counters["bytes_per_second"].resize(1);
  EXPECT_EQ(repetition_entries(run).size(), 1u);
}

TEST(Repetitions, MedianOfAnEvenCountIsTheMeanOfTheMiddleTwo) {
  EXPECT_DOUBLE_EQ(median_of({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median_of({}), 0);
}

TEST(Repetitions, RecordRoundTripKeepsRepetitionsAggregatesAndErrors) {
  Record record;
  record.schema_version = kSchemaVersion;
  record.provenance = Provenance::kMeasured;
  record.context = {{kSchemaKey, "1"}, {kProvenanceKey, "measured"}, {"gpu_name", "NVIDIA H200"}};
  record.entries = repetition_entries(three_repetitions());
  record.entries.push_back(error_entry("BM_StepUpdate/cuda/shape:prefill/tokens:65536/requests:16/dtype:bf16",
                                       "disagrees with the reference: q_out[7]"));
  const Record back = parse_record(nlohmann::json::parse(record_to_json(record).dump(2)), "candidate", "round-trip.json");
  ASSERT_EQ(back.entries.size(), record.entries.size());
  EXPECT_EQ(back.provenance, Provenance::kMeasured);
  for (size_t i = 0; i < back.entries.size(); ++i) {
    EXPECT_EQ(back.entries[i].name, record.entries[i].name);
    EXPECT_EQ(back.entries[i].aggregate, record.entries[i].aggregate);
    EXPECT_NEAR(back.entries[i].real_time_ns, record.entries[i].real_time_ns, 1e-6);
  }
  EXPECT_TRUE(back.entries.back().error);
  EXPECT_EQ(back.entries.back().error_message, "disagrees with the reference: q_out[7]");
  // The same record as baseline and candidate: nothing changed, nothing flagged.
  EXPECT_EQ(compare_records(back, back, CompareOptions{}).regressions, 0);
}

}  // namespace
}  // namespace qsa::records
