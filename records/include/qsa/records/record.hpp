#pragma once
// A benchmark record: one Google Benchmark JSON file, optionally with our context block
// (docs/bench-records.md). Plain Google Benchmark JSON from any binary reads as a record of
// unknown environment; a record converted from a text log is marked imported and holds
// aggregates only.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace qsa::records {

/// The record schema this build writes and reads; `compare` and `report` refuse newer ones.
inline constexpr int kSchemaVersion = 1;
/// Context keys of our block (all JSON strings, as Google Benchmark's AddCustomContext writes them).
inline constexpr const char* kSchemaKey = "qsacheck_schema_version";
inline constexpr const char* kProvenanceKey = "qsacheck_record";  // "measured" or "imported"

/// One element of "benchmarks": a repetition, a single run, or an aggregate of repetitions.
struct Entry {
  std::string name;      // as written ("..._median" for an aggregate)
  std::string run_name;  // the benchmark the entry belongs to (run_name, or name without the aggregate suffix)
  bool aggregate = false;
  std::string aggregate_name;  // "mean", "median", "stddev", "cv", ... when aggregate
  double real_time_ns = 0;     // converted from time_unit
  double cpu_time_ns = 0;
  int64_t iterations = 0;
  int64_t repetitions = 0;        // of the benchmark (0 when not given)
  int64_t repetition_index = -1;  // of a repetition (-1 when not given)
  bool error = false;             // "error_occurred": the benchmark did not produce a time
  std::string error_message;
  std::map<std::string, double> counters;  // every other numeric field (bytes_per_second, ...)
};

enum class Provenance { kPlain, kMeasured, kImported };

struct Record {
  std::string source;  // the file name, for messages
  nlohmann::json context = nlohmann::json::object();
  int schema_version = 0;  // 0: plain Google Benchmark JSON (unknown environment)
  Provenance provenance = Provenance::kPlain;
  std::vector<Entry> entries;

  /// The context value of `key` as text ("" when absent; numbers are printed).
  [[nodiscard]] std::string context_text(const std::string& key) const;
};

/// Reads a record from parsed JSON (the caller reads and parses the file with the bounded readers
/// of docs/limits.md). Errors throw InputError naming `field` (e.g. "baseline"): not a benchmark
/// record, a bad entry (field "<field>.benchmarks", index: the entry), an unsupported schema version.
Record parse_record(const nlohmann::json& json, const std::string& field, const std::string& source);

/// The record as Google Benchmark JSON ("context" then "benchmarks", fields in Google Benchmark's
/// order), for writing.
nlohmann::ordered_json record_to_json(const Record& record);

}  // namespace qsa::records
