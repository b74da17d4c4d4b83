#include "qsa/records/consumer_export.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "qsa/records/benchmark_name.hpp"
#include "qsa/records/repetitions.hpp"

namespace qsa::records {
namespace {

// One benchmark's entries: its repetitions, or (an imported record) its median aggregate.
struct Benchmark {
  std::string key;
  std::vector<double> real_ns, cpu_ns;
  std::map<std::string, std::vector<double>> counters;
  int64_t iterations = 0;
  const Entry* median = nullptr;
  bool error = false;
};

// The record's entries grouped by benchmark key, in first-seen order.
std::vector<Benchmark> group_by_benchmark(const Record& record) {
  std::vector<Benchmark> benchmarks;
  std::map<std::string, size_t> at;
  for (const Entry& e : record.entries) {
    const std::string key = benchmark_key(e.run_name);
    const auto [it, added] = at.emplace(key, benchmarks.size());
    if (added) benchmarks.push_back(Benchmark{key, {}, {}, {}, 0, nullptr, false});
    Benchmark& b = benchmarks[it->second];
    if (e.error) {
      b.error = true;
    } else if (!e.aggregate) {
      b.real_ns.push_back(e.real_time_ns);
      b.cpu_ns.push_back(e.cpu_time_ns);
      b.iterations = e.iterations;
      for (const auto& [name, value] : e.counters) b.counters[name].push_back(value);
    } else if (e.aggregate_name == "median") {
      b.median = &e;
    }
  }
  return benchmarks;
}

bool exported(const Benchmark& b) { return !b.error && (!b.real_ns.empty() || b.median != nullptr); }

}  // namespace

nlohmann::ordered_json consumer_export(const Record& record) {
  const std::vector<Benchmark> benchmarks = group_by_benchmark(record);
  nlohmann::ordered_json out;
  out["context"] = nlohmann::ordered_json::parse(record.context.dump());
  if (!out["context"].contains("caches")) out["context"]["caches"] = nlohmann::ordered_json::array();
  out["context"]["qsacheck_export"] = "median";  // says what the entries are
  nlohmann::ordered_json entries = nlohmann::ordered_json::array();
  std::map<std::string, std::pair<int64_t, int64_t>> families;  // family -> (index, instances so far)
  for (const Benchmark& b : benchmarks) {
    if (!exported(b)) continue;
    auto& [family_index, instances] =
        families.try_emplace(split_benchmark_name(b.key).family, static_cast<int64_t>(families.size()), 0)
            .first->second;
    nlohmann::ordered_json j{{"name", b.key},
                             {"family_index", family_index},
                             {"per_family_instance_index", instances++},
                             {"run_name", b.key},
                             {"run_type", "iteration"},
                             {"repetitions", 1},
                             {"repetition_index", 0},
                             {"threads", 1}};
    if (!b.real_ns.empty()) {
      j["iterations"] = b.iterations;
      j["real_time"] = median_of(b.real_ns);
      j["cpu_time"] = median_of(b.cpu_ns);
      j["time_unit"] = "ns";
      for (const auto& [name, values] : b.counters) j[name] = median_of(values);
    } else {
      j["iterations"] = b.median->iterations;
      j["real_time"] = b.median->real_time_ns;
      j["cpu_time"] = b.median->cpu_time_ns;
      j["time_unit"] = "ns";
      for (const auto& [name, value] : b.median->counters) j[name] = value;
    }
    entries.push_back(std::move(j));
  }
  out["benchmarks"] = std::move(entries);
  return out;
}

nlohmann::ordered_json bencher_metric_format(const Record& record) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const Benchmark& b : group_by_benchmark(record)) {
    if (!exported(b)) continue;
    nlohmann::ordered_json latency;
    if (!b.real_ns.empty()) {
      latency["value"] = median_of(b.real_ns);
      latency["lower_value"] = *std::min_element(b.real_ns.begin(), b.real_ns.end());
      latency["upper_value"] = *std::max_element(b.real_ns.begin(), b.real_ns.end());
    } else {
      latency["value"] = b.median->real_time_ns;  // an imported record keeps its median alone
    }
    out[b.key]["latency"] = std::move(latency);
  }
  return out;
}

}  // namespace qsa::records
