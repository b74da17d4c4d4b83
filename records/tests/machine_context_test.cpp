// The keys a real Google Benchmark 1.7.1 file has (Debian 12's libbenchmark-dev, as observed in
// consumers_test.py's file) are in what a qsacheck record writes: the host context of
// machine_context() and each entry's family_index and per_family_instance_index.

#include <gtest/gtest.h>

#include "qsa/records/machine_context.hpp"
#include "qsa/records/record.hpp"
#include "qsa/records/repetitions.hpp"

namespace qsa::records {
namespace {

TEST(MachineContext, HasTheHostKeysOfGoogleBenchmark171) {
  const nlohmann::json x = machine_context();
  for (const char* key : {"num_cpus", "mhz_per_cpu", "cpu_scaling_enabled", "caches", "load_avg", "library_build_type"})
    EXPECT_TRUE(x.contains(key)) << key;
  EXPECT_TRUE(x["caches"].is_array());
  for (const nlohmann::json& cache : x["caches"])
    for (const char* key : {"type", "level", "size", "num_sharing"}) EXPECT_TRUE(cache.contains(key)) << cache;
  EXPECT_TRUE(x["load_avg"].is_array());
  EXPECT_TRUE(x["cpu_scaling_enabled"].is_boolean());
}

TEST(RecordToJson, EntriesCarryTheirFamilyAndInstanceIndex) {
  Record record;
  for (const char* name : {"BM_StepUpdate/cuda/shape:a/iterations:3/repeats:2/manual_time",
                           "BM_StepUpdate/cuda/shape:b/iterations:3/repeats:2/manual_time",
                           "BM_Floor/empty_kernel/iterations:3/repeats:2/manual_time"}) {
    Repetitions run;
    run.run_name = name;
    run.iterations = 3;
    run.real_time_ns = {1000, 1100};
    run.cpu_time_ns = {1000, 1100};
    for (Entry& e : repetition_entries(run)) record.entries.push_back(std::move(e));
  }
  const nlohmann::ordered_json json = record_to_json(record);
  const auto& b = json["benchmarks"];
  ASSERT_EQ(b.size(), 18u);  // 2 repetitions and 4 aggregates each
  EXPECT_EQ(b[0]["family_index"], 0);
  EXPECT_EQ(b[0]["per_family_instance_index"], 0);
  EXPECT_EQ(b[5]["per_family_instance_index"], 0);  // the first benchmark's cv
  EXPECT_EQ(b[6]["family_index"], 0);
  EXPECT_EQ(b[6]["per_family_instance_index"], 1);
  EXPECT_EQ(b[12]["family_index"], 1);
  EXPECT_EQ(b[12]["per_family_instance_index"], 0);
}

}  // namespace
}  // namespace qsa::records
