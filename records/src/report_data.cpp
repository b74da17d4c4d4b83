#include "qsa/records/report_data.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>

#include "qsa/records/benchmark_name.hpp"

namespace qsa::records {
namespace {

std::string shape_label(const BenchmarkName& name) {
  std::string label;
  for (const auto& [arg, value] : name.args) {
    if (!label.empty()) label += ' ';
    if (arg == "tokens")
      label += "N=" + value;
    else if (arg == "requests")
      label += "NR=" + value;
    else
      label += value;
  }
  return label;
}

// The shape's words without its sizes: "decode N=256 NR=64 bf16" -> "decode bf16".
std::string shape_group(const std::string& label) {
  std::string group;
  size_t start = 0;
  while (start <= label.size()) {
    const size_t end = std::min(label.find(' ', start), label.size());
    const std::string word = label.substr(start, end - start);
    if (!word.empty() && word.find('=') == std::string::npos) group += (group.empty() ? "" : " ") + word;
    start = end + 1;
  }
  return group.empty() ? "all shapes" : group;
}

bool is_shape_benchmark(const BenchmarkName& name) {
  if (name.backend.empty() || name.arg("tokens").empty()) return false;
  for (const auto& arg : name.args)
    if (!is_shape_argument(arg.first)) return false;
  return true;
}

double context_number(const Record& record, const char* key) {
  const std::string text = record.context_text(key);
  return text.empty() ? -1 : std::atof(text.c_str());
}

// The floor and ceiling a record states in its context, else its BM_Floor/empty_kernel and fastest BM_Copy.
void floor_and_ceiling(const Record& record, const std::vector<BenchmarkTimes>& times, FamilyShapes* family) {
  family->floor_us = context_number(record, "floor_us");
  family->copy_ceiling_bytes_per_second = context_number(record, "copy_ceiling_bytes_per_second");
  for (const BenchmarkTimes& b : times) {
    if (family->floor_us < 0 && b.key == "BM_Floor/empty_kernel" && b.median_ns > 0)
      family->floor_us = b.median_ns / 1e3;
    if (b.key.rfind("BM_Copy/", 0) == 0 && context_number(record, "copy_ceiling_bytes_per_second") < 0)
      family->copy_ceiling_bytes_per_second = std::max(family->copy_ceiling_bytes_per_second, b.bytes_per_second);
  }
}

// The backend a family's history follows: the record's "backend", else every backend other than the
// reference and the unfused baseline, else every backend.
bool under_test(const Record& record, const std::string& backend, const std::set<std::string>& family_backends) {
  const std::string stated = record.context_text("backend");
  if (!stated.empty() && family_backends.count(stated)) return backend == stated;
  bool others = false;
  for (const std::string& b : family_backends) others |= b != "reference" && b != "baseline";
  return !others || (backend != "reference" && backend != "baseline");
}

}  // namespace

bool is_shape_argument(const std::string& name) {
  return name == "shape" || name == "kind" || name == "tokens" || name == "requests" || name == "dtype";
}

std::string record_label(const Record& record) {
  std::string date = record.context_text("date");
  if (date.size() >= 16) date = date.substr(0, 10) + " " + date.substr(11, 5);
  std::string commit = record.context_text("qsacheck_commit");
  if (commit.size() > 8) commit = commit.substr(0, 8);
  std::string label = date.empty() ? record.source : date;
  if (!commit.empty()) label += " " + commit;
  return label;
}

ReportData build_report_data(std::vector<Record> records, const CompareOptions& options) {
  // ISO 8601 dates with the same offset order as text; a record without a date goes first.
  std::stable_sort(records.begin(), records.end(), [](const Record& a, const Record& b) {
    const auto key = [](const Record& r) {
      return std::make_tuple(r.context_text("date"), r.context_text("qsacheck_commit"), r.source);
    };
    return key(a) < key(b);
  });
  ReportData data;
  data.records = std::move(records);
  std::vector<std::vector<BenchmarkTimes>> times;
  for (const Record& r : data.records) times.push_back(benchmark_times(r));
  // Two records of one family and commit written in the same minute (repeated runs) read alike by
  // date and commit: those are told apart by their file names (without ".json").
  std::vector<std::set<std::string>> families_of(data.records.size());
  for (size_t r = 0; r < data.records.size(); ++r)
    for (const BenchmarkTimes& b : times[r])
      if (is_shape_benchmark(split_benchmark_name(b.key))) families_of[r].insert(split_benchmark_name(b.key).family);
  for (size_t r = 0; r < data.records.size(); ++r) {
    const std::string label = record_label(data.records[r]);
    bool alike = false;
    for (size_t o = 0; o < data.records.size() && !alike; ++o)
      if (o != r && record_label(data.records[o]) == label)
        for (const std::string& family : families_of[r]) alike |= families_of[o].count(family) > 0;
    std::string file = data.records[r].source.substr(data.records[r].source.rfind('/') + 1);
    if (file.size() > 5 && file.compare(file.size() - 5, 5, ".json") == 0) file.resize(file.size() - 5);
    data.labels.push_back(alike ? label + " " + file : label);
  }

  // Each backend's newest record of a family draws its shapes (so ours and a plugin timed in other
  // runs stand side by side); the family's newest record states the floor and the ceiling.
  std::map<std::string, size_t> family_at;
  std::map<std::pair<std::string, std::string>, size_t> backend_record;
  for (size_t r = data.records.size(); r-- > 0;) {
    for (const BenchmarkTimes& b : times[r]) {
      const BenchmarkName name = split_benchmark_name(b.key);
      if (!is_shape_benchmark(name) || b.median_ns <= 0) continue;
      auto [it, added] = family_at.emplace(name.family, data.families.size());
      if (added) {
        data.families.push_back(FamilyShapes{name.family, r, {}, {}, {}, {}, -1, -1});
        floor_and_ceiling(data.records[r], times[r], &data.families.back());
      }
      FamilyShapes& family = data.families[it->second];
      if (backend_record.emplace(std::make_pair(name.family, name.backend), r).first->second != r) continue;
      if (r != family.record &&
          std::find(family.other_records.begin(), family.other_records.end(), r) == family.other_records.end())
        family.other_records.push_back(r);
      const std::string shape = shape_label(name);
      if (std::find(family.shapes.begin(), family.shapes.end(), shape) == family.shapes.end())
        family.shapes.push_back(shape);
      if (std::find(family.backends.begin(), family.backends.end(), name.backend) == family.backends.end())
        family.backends.push_back(name.backend);
      family.points.push_back(ShapePoint{name.backend, shape, std::atof(name.arg("tokens").c_str()), b.median_ns / 1e3,
                                         b.bytes_per_second});
    }
  }
  std::sort(data.families.begin(), data.families.end(),
            [](const FamilyShapes& a, const FamilyShapes& b) { return a.family < b.family; });

  // History: every shape benchmark of the backend under test, record after record.
  std::map<std::string, std::set<std::string>> backends_of;
  for (const auto& record_times : times)
    for (const BenchmarkTimes& b : record_times) {
      const BenchmarkName name = split_benchmark_name(b.key);
      if (is_shape_benchmark(name)) backends_of[name.family].insert(name.backend);
    }
  std::map<std::string, size_t> series_at;
  std::map<std::string, const BenchmarkTimes*> previous;
  for (size_t r = 0; r < data.records.size(); ++r) {
    for (const BenchmarkTimes& b : times[r]) {
      const BenchmarkName name = split_benchmark_name(b.key);
      if (!is_shape_benchmark(name) || b.median_ns <= 0 ||
          !under_test(data.records[r], name.backend, backends_of[name.family]))
        continue;
      auto [it, added] = series_at.emplace(b.key, data.history.size());
      if (added)
        data.history.push_back(HistorySeries{name.family, name.backend, shape_label(name), b.key,
                                             shape_group(shape_label(name)), {}});
      HistoryPoint point{r, b.median_ns / 1e3, false, 0, -1, Verdict::kUntested};
      const auto before = previous.find(b.key);
      if (before != previous.end()) {
        const BenchmarkChange c = compare_benchmark(*before->second, b, options);
        point.change = c.change;
        point.p_value = c.p_value;
        point.verdict = c.verdict;
        // Records without repetitions (imported) cannot be tested: beyond the threshold marks them.
        point.regression =
            c.verdict == Verdict::kRegression || (c.verdict == Verdict::kUntested && c.change > options.threshold);
      }
      previous[b.key] = &b;
      data.history[it->second].points.push_back(point);
    }
  }
  return data;
}

}  // namespace qsa::records
