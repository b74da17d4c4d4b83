#include "record_builder.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>

namespace qsa::records::testing {

nlohmann::json h200_context(const std::map<std::string, std::string>& overrides) {
  nlohmann::json context{{"date", "2026-12-01T10:00:00+00:00"},
                         {"host_name", "gpu-runner"},
                         {"executable", "./step_update_bench"},
                         {"library_build_type", "release"},
                         {"qsacheck_schema_version", "1"},
                         {"qsacheck_record", "measured"},
                         {"gpu_name", "NVIDIA H200"},
                         {"gpu_sm_count", "132"},
                         {"gpu_sm_clock_mhz_start", "1980"},
                         {"gpu_sm_clock_mhz_end", "1980"},
                         {"gpu_mem_clock_mhz_start", "3201"},
                         {"gpu_mem_clock_mhz_end", "3201"},
                         {"gpu_driver", "580.159.04"},
                         {"cuda_version", "13.0"},
                         {"qsacheck_version", "0.1.0"},
                         {"qsacheck_commit", "c33ba7567063"},
                         {"spec_version", "1"},
                         {"backend", "cuda"},
                         {"command_line", "qsacheck bench --backend cuda"}};
  for (const auto& [key, value] : overrides) context[key] = value;
  return context;
}

nlohmann::json build_record(const std::vector<BuiltBenchmark>& benchmarks, const nlohmann::json& context) {
  nlohmann::json list = nlohmann::json::array();
  int family = 0;
  for (const BuiltBenchmark& b : benchmarks) {
    const auto n = static_cast<int64_t>(b.times.size());
    auto entry = [&](const std::string& name, double time) {
      nlohmann::json e{{"name", name},       {"family_index", family}, {"per_family_instance_index", 0},
                       {"run_name", b.name}, {"repetitions", n},       {"threads", 1},
                       {"iterations", 30},   {"real_time", time},      {"cpu_time", time * 40},
                       {"time_unit", "us"}};
      if (b.bytes_per_step > 0) e["bytes_per_second"] = b.bytes_per_step / (time * 1e-6);
      return e;
    };
    for (int64_t i = 0; i < n; ++i) {
      nlohmann::json e = entry(b.name, b.times[static_cast<size_t>(i)]);
      e["run_type"] = "iteration";
      e["repetition_index"] = i;
      list.push_back(e);
    }
    std::vector<double> sorted = b.times;
    std::sort(sorted.begin(), sorted.end());
    double mean = 0;
    for (double t : b.times) mean += t / static_cast<double>(n);
    const double median = n % 2 ? sorted[static_cast<size_t>(n / 2)]
                                : (sorted[static_cast<size_t>(n / 2 - 1)] + sorted[static_cast<size_t>(n / 2)]) / 2;
    for (const auto& [statistic, value] : {std::pair<const char*, double>{"mean", mean}, {"median", median}}) {
      nlohmann::json e = entry(b.name + "_" + statistic, value);
      e["run_type"] = "aggregate";
      e["aggregate_name"] = statistic;
      e["aggregate_unit"] = "time";
      list.push_back(e);
    }
    ++family;
  }
  return {{"context", context}, {"benchmarks", list}};
}

std::vector<double> noisy_times(double center, double spread, int n, uint64_t seed) {
  std::vector<double> times;
  uint64_t state = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (int i = 0; i < n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const double unit = static_cast<double>(state >> 11) / 9007199254740992.0;  // [0, 1)
    times.push_back(center * (1 + spread * (2 * unit - 1)));
  }
  return times;
}

std::string write_temp_file(const std::string& name, const std::string& text) {
  char dir[] = "/tmp/qsacheck-records-test-XXXXXX";
  const char* made = mkdtemp(dir);
  const std::string path = std::string(made != nullptr ? made : "/tmp") + "/" + name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace qsa::records::testing
