#include "qsa/records/repetitions.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace qsa::records {
namespace {

double mean(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double stddev(const std::vector<double>& v) {  // the sample standard deviation, as Google Benchmark
  if (v.size() < 2) return 0;
  const double m = mean(v);
  double sum = 0;
  for (double x : v) sum += (x - m) * (x - m);
  return std::sqrt(sum / static_cast<double>(v.size() - 1));
}

double aggregate(const std::string& name, const std::vector<double>& v) {
  if (name == "mean") return mean(v);
  if (name == "median") return median_of(v);
  if (name == "stddev") return stddev(v);
  const double m = mean(v);  // cv: a fraction
  return m == 0 ? 0 : stddev(v) / m;
}

}  // namespace

double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::vector<Entry> repetition_entries(const Repetitions& run) {
  std::vector<Entry> out;
  const auto count = static_cast<int64_t>(run.real_time_ns.size());
  for (int64_t r = 0; r < count; ++r) {
    Entry e;
    e.name = e.run_name = run.run_name;
    e.real_time_ns = run.real_time_ns[static_cast<size_t>(r)];
    e.cpu_time_ns = run.cpu_time_ns[static_cast<size_t>(r)];
    e.iterations = run.iterations;
    e.repetitions = count;
    e.repetition_index = r;
    for (const auto& [key, values] : run.counters) e.counters[key] = values[static_cast<size_t>(r)];
    out.push_back(std::move(e));
  }
  if (count < 2) return out;
  for (const char* name : {"mean", "median", "stddev", "cv"}) {
    Entry e;
    e.name = run.run_name + "_" + name;
    e.run_name = run.run_name;
    e.aggregate = true;
    e.aggregate_name = name;
    e.real_time_ns = aggregate(name, run.real_time_ns);
    e.cpu_time_ns = aggregate(name, run.cpu_time_ns);
    e.iterations = count;
    e.repetitions = count;
    for (const auto& [key, values] : run.counters) e.counters[key] = aggregate(name, values);
    out.push_back(std::move(e));
  }
  return out;
}

Entry error_entry(const std::string& run_name, const std::string& message) {
  Entry e;
  e.name = e.run_name = run_name;
  e.error = true;
  e.error_message = message;
  return e;
}

}  // namespace qsa::records
