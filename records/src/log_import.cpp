#include "qsa/records/log_import.hpp"

#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>

#include "qsa/records/benchmark_name.hpp"
#include "qsa/input_error.hpp"

namespace qsa::records {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> words_of(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

// "345 MHz" -> "345"
std::string mhz(const std::string& field) {
  const std::string t = trim(field);
  return t.size() > 4 && t.compare(t.size() - 4, 4, " MHz") == 0 ? t.substr(0, t.size() - 4) : "";
}

double number(const std::string& text, const char* field, int64_t line) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0')
    throw InputError(Error{field, line, "not-a-number", "\"" + text + "\" is not a number"});
  return value;
}

// The environment run_gpu.sh writes at the top of summary.txt and its title line.
void read_environment(const std::vector<std::string>& lines, nlohmann::json* context) {
  for (const std::string& line : lines) {
    const std::string title = "qsacheck GPU bundle run, ";
    if (starts_with(line, title) && !context->contains("date")) {
      std::string date = line.substr(title.size());
      if (!date.empty() && date.back() == 'Z') date = date.substr(0, date.size() - 1) + "+00:00";
      (*context)["date"] = date;
    }
    std::vector<std::string> fields;
    std::istringstream in(line);
    for (std::string f; std::getline(in, f, ',');) fields.push_back(f);
    // nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,...: read before the run.
    if (fields.size() >= 4 && !mhz(fields[2]).empty() && !mhz(fields[3]).empty() && !context->contains("gpu_name")) {
      (*context)["gpu_name"] = trim(fields[0]);
      (*context)["gpu_driver"] = trim(fields[1]);
      (*context)["gpu_sm_clock_mhz_start"] = mhz(fields[2]);
      (*context)["gpu_mem_clock_mhz_start"] = mhz(fields[3]);
    }
    // "qsacheck 0.1.0 (SPEC version 1, commit c33ba7567063, CUDA support built)"
    if (starts_with(line, "qsacheck ") && line.find("(SPEC version ") != std::string::npos) {
      const auto words = words_of(line);
      (*context)["qsacheck_version"] = words[1];
      const auto spec = line.find("SPEC version ") + 13;
      (*context)["spec_version"] = line.substr(spec, line.find(',', spec) - spec);
      const auto commit = line.find("commit ");
      if (commit != std::string::npos)
        (*context)["qsacheck_commit"] = line.substr(commit + 7, line.find(',', commit) - commit - 7);
    }
  }
}

Entry aggregate(const std::string& run_name, const std::string& statistic, double micros) {
  Entry e;
  e.run_name = run_name;
  e.name = run_name + "_" + statistic;
  e.aggregate = true;
  e.aggregate_name = statistic;
  e.real_time_ns = e.cpu_time_ns = micros * 1e3;
  return e;
}

// The step-update summary table (bench/step_update_bench.cpp's print_summary).
void read_step_table(const std::vector<std::string>& lines, size_t at, Record* record) {
  // "copy ceiling 3.95 TB/s, empty-kernel floor 0.67 us"
  const auto head = words_of(lines.at(at + 1));
  if (head.size() < 8 || head[0] != "copy")
    throw InputError(Error{"summary", static_cast<int64_t>(at + 2), "unexpected-line",
                                   "expected \"copy ceiling X TB/s, empty-kernel floor Y us\""});
  const double ceiling = number(head[2], "summary", static_cast<int64_t>(at + 2)) * 1e12;
  const double floor = number(head[6], "summary", static_cast<int64_t>(at + 2));
  record->context["copy_ceiling_bytes_per_second"] = std::to_string(std::llround(ceiling));
  record->context["floor_us"] = head[6];
  record->entries.push_back(aggregate("BM_Floor/empty_kernel", "median", floor));
  for (size_t i = at + 3; i < lines.size(); ++i) {
    const auto w = words_of(lines[i]);
    if (w.size() != 10) break;  // shape dtype N NR ours baseline reference TB/s of-copy base/ours
    const std::string shape = "shape:" + w[0] + "/tokens:" + w[2] + "/requests:" + w[3] + "/dtype:" + w[1];
    const auto line = static_cast<int64_t>(i + 1);
    const double ours = number(w[4], "summary", line), tbps = number(w[7], "summary", line);
    Entry cuda = aggregate("BM_StepUpdate/cuda/" + shape, "median", ours);
    cuda.counters["bytes_per_second"] = tbps * 1e12;
    record->entries.push_back(cuda);
    const double base = number(w[5], "summary", line);
    Entry baseline = aggregate("BM_StepUpdate/baseline/" + shape, "median", base);
    baseline.counters["bytes_per_second"] = tbps * 1e12 * ours / base;  // the same bytes per step
    record->entries.push_back(baseline);
    if (w[6] != "-") {
      const double ref = number(w[6], "summary", line);
      Entry reference = aggregate("BM_StepUpdate/reference/" + shape, "median", ref);
      reference.counters["bytes_per_second"] = tbps * 1e12 * ours / ref;
      record->entries.push_back(reference);
    }
  }
}

// The metadata summary table (bench/metadata_bench.cpp).
void read_metadata_table(const std::vector<std::string>& lines, size_t at, Record* record) {
  double floor = -1;
  for (size_t i = at + 2; i < lines.size(); ++i) {
    const auto w = words_of(lines[i]);
    if (w.size() != 9) break;  // shape kind N NR reference_cpu baseline ours floor ours/floor
    const std::string shape = "kind:" + w[1] + "/tokens:" + w[2] + "/requests:" + w[3];
    const auto line = static_cast<int64_t>(i + 1);
    const char* backends[] = {"reference", "baseline", "cuda"};
    for (int b = 0; b < 3; ++b)
      record->entries.push_back(aggregate(std::string("BM_Metadata/") + backends[b] + "/" + shape, "median",
                                          number(w[4 + static_cast<size_t>(b)], "summary", line)));
    floor = number(w[7], "summary", line);
  }
  if (floor > 0) {
    record->entries.push_back(aggregate("BM_Floor/empty_kernel", "median", floor));
    char text[32];
    std::snprintf(text, sizeof(text), "%.2f", floor);
    record->context["floor_us"] = text;
  }
}

// "79.3938G/s", "0/s", "6.21%", "-nan%": the console's counter format (Google Benchmark 1.7: bytes
// are counted in powers of 1024, other counters in powers of 1000).
double counter_value(std::string text, bool binary) {
  while (!text.empty() && (text.back() == 's' || text.back() == '/' || text.back() == '%')) text.pop_back();
  if (text.empty()) return 0;
  const std::string prefixes = "kMGTPE";
  const auto p = prefixes.find(text.back());
  double scale = 1;
  if (p != std::string::npos) {
    text.pop_back();
    scale = std::pow(binary ? 1024.0 : 1000.0, static_cast<double>(p + 1));
  }
  return std::strtod(text.c_str(), nullptr) * scale;
}

double micros(double value, const std::string& unit) {
  if (unit == "ns") return value / 1e3;
  if (unit == "ms") return value * 1e3;
  if (unit == "s") return value * 1e6;
  return value;
}

struct LogRead {
  std::string binary;
  Record record;
};

// One "BM_..." line of the console table: name, time, unit, cpu time, unit, iterations, counters.
Entry console_entry(const std::vector<std::string>& w, const std::vector<std::string>& counter_names, int64_t at) {
  Entry e;
  e.name = w[0];
  e.run_name = w[0];
  for (const char* statistic : {"_mean", "_median", "_stddev", "_cv"}) {
    const std::string s(statistic);
    if (e.name.size() > s.size() && e.name.compare(e.name.size() - s.size(), s.size(), s) == 0) {
      e.aggregate = true;
      e.aggregate_name = s.substr(1);
      e.run_name = e.name.substr(0, e.name.size() - s.size());
    }
  }
  if (e.aggregate_name == "cv") {  // "0.13 %": a fraction, not a time
    e.real_time_ns = number(w[1], "log", at) / 100;
    e.cpu_time_ns = number(w[3], "log", at) / 100;
  } else {
    e.real_time_ns = micros(number(w[1], "log", at), w[2]) * 1e3;
    e.cpu_time_ns = micros(number(w[3], "log", at), w[4]) * 1e3;
  }
  e.iterations = static_cast<int64_t>(number(w[5], "log", at));
  for (size_t c = 0; c < counter_names.size() && 6 + c < w.size(); ++c)
    if (e.aggregate_name != "cv")
      e.counters[counter_names[c]] = counter_value(w[6 + c], counter_names[c] == "bytes_per_second");
  return e;
}

// The benchmark binaries' console output in a log: one section per "=== <name> (...): command"
// line (run_gpu.sh's step header); every section of a `*_bench` binary with benchmark lines is a
// record. Other sections (tests) are skipped.
std::vector<LogRead> read_log(const TextFile& log) {
  std::vector<LogRead> reads;
  const auto lines = lines_of(log.text);
  std::vector<std::string> counter_names;
  LogRead* read = nullptr;  // the section being read; reads is reserved so that it stays valid
  reads.reserve(lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    const auto w = words_of(line);
    if (starts_with(line, "=== ") && w.size() > 1) {
      read = nullptr;
      const std::string& name = w[1];
      if (name.size() <= 6 || name.compare(name.size() - 6, 6, "_bench") != 0) continue;
      reads.push_back(LogRead{name, Record{}});
      read = &reads.back();
      counter_names.clear();
      const auto colon = line.find("): ");
      if (colon != std::string::npos) read->record.context["command_line"] = line.substr(colon + 3);
    } else if (read == nullptr) {
      continue;
    } else if (line.size() == 25 && line[4] == '-' && line[10] == 'T') {
      read->record.context["date"] = line;  // Google Benchmark's date line
    } else if (starts_with(line, "device: ")) {
      // "device: NVIDIA H200 (sm_90, 132 SMs)"
      const auto open = line.find(" (");
      read->record.context["gpu_name"] = line.substr(8, open - 8);
      const auto sms = line.find(" SMs)");
      const auto comma = line.rfind(", ", sms);
      if (sms != std::string::npos && comma != std::string::npos)
        read->record.context["gpu_sm_count"] = line.substr(comma + 2, sms - comma - 2);
    } else if (!w.empty() && w[0] == "Benchmark") {
      counter_names.assign(w.begin() + std::min<std::ptrdiff_t>(4, static_cast<std::ptrdiff_t>(w.size())), w.end());
    } else if (starts_with(line, "BM_") && w.size() >= 6) {
      read->record.entries.push_back(console_entry(w, counter_names, static_cast<int64_t>(i + 1)));
    }
  }
  std::vector<LogRead> records;
  for (LogRead& r : reads)
    if (!r.record.entries.empty()) records.push_back(std::move(r));
  if (records.empty())
    throw InputError(
        Error{"log", -1, "no-benchmarks", log.path + ": no \"=== <name>_bench\" section with benchmark lines"});
  return records;
}

// Floor and copy ceiling of a record read from a log: its BM_Floor/empty_kernel and fastest BM_Copy.
void add_floor_and_ceiling(Record* record) {
  double ceiling = -1;
  for (const Entry& e : record->entries) {
    if (!e.aggregate || e.aggregate_name != "median") continue;
    const std::string key = benchmark_key(e.run_name);
    if (key == "BM_Floor/empty_kernel") {
      char text[32];
      std::snprintf(text, sizeof(text), "%.3f", e.real_time_ns / 1e3);
      record->context["floor_us"] = text;
    }
    const auto bytes = e.counters.find("bytes_per_second");
    if (starts_with(key, "BM_Copy/") && bytes != e.counters.end()) ceiling = std::max(ceiling, bytes->second);
  }
  if (ceiling > 0) record->context["copy_ceiling_bytes_per_second"] = std::to_string(std::llround(ceiling));
}

}  // namespace

std::vector<ImportedRecord> import_gpu_run(const TextFile& summary, const std::vector<TextFile>& logs,
                                           const std::string& commit) {
  const auto lines = lines_of(summary.text);
  nlohmann::json environment = nlohmann::json::object();
  environment[kSchemaKey] = std::to_string(kSchemaVersion);
  environment[kProvenanceKey] = "imported";
  environment["backend"] = "cuda";
  read_environment(lines, &environment);
  if (!commit.empty()) {
    environment["qsacheck_commit"] = commit;
    environment["qsacheck_commit_source"] = "given to `qsacheck bench import --commit`";
  }
  std::map<std::string, Record> by_binary;
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    if (starts_with(lines[i], "Summary: time per step (median, microseconds), bandwidth"))
      read_step_table(lines, i, &by_binary["step_update_bench"]);
    else if (starts_with(lines[i], "Summary: time per step (median), microseconds"))
      read_metadata_table(lines, i, &by_binary["metadata_bench"]);
  }
  for (auto& [binary, record] : by_binary) record.context["imported_from"] = summary.path;
  for (const TextFile& log : logs) {
    read_environment(lines_of(log.text), &environment);  // a log that carries the run's nvidia-smi line
    for (LogRead& read : read_log(log)) {
      add_floor_and_ceiling(&read.record);
      read.record.context["imported_from"] = summary.path.empty() ? log.path : summary.path + ", " + log.path;
      by_binary[read.binary] = read.record;
    }
  }
  if (by_binary.empty())
    throw InputError(
        Error{"summary", -1, "no-benchmarks", summary.path + " holds no benchmark summary table and no log was given"});
  const std::string source = summary.path.empty() ? logs.front().path : summary.path;
  std::vector<ImportedRecord> result;
  for (auto& [binary, record] : by_binary) {
    nlohmann::json context = environment;
    for (const auto& [key, value] : record.context.items()) context[key] = value;  // the log's own wins
    context["executable"] = binary;
    context["imported_statistic"] = "aggregates as logged (the summary tables hold medians only)";
    record.context = context;
    record.schema_version = kSchemaVersion;
    record.provenance = Provenance::kImported;
    record.source = source;
    result.push_back(ImportedRecord{binary, record});
  }
  return result;
}

}  // namespace qsa::records
