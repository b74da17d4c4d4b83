#pragma once
// What `qsacheck report` draws, computed from the records alone (no drawing here): the records in
// history order; each benchmark family's shapes, each backend from its newest record (time per
// backend; the floor and the copy ceiling of the family's newest record); and the history of every
// shape with the regressions marked.

#include <string>
#include <vector>

#include "qsa/records/comparison.hpp"
#include "qsa/records/record.hpp"

namespace qsa::records {

/// Arguments that name a shape (the rest, e.g. a tuning's heads_per_pass, make a variant that the
/// shape plots leave out).
bool is_shape_argument(const std::string& name);

struct ShapePoint {
  std::string backend;
  std::string shape;  // "decode N=256 NR=64 bf16"
  double tokens = 0;  // N
  double time_us = 0;
  double bytes_per_second = -1;  // -1: the benchmark counts no bytes
};

struct FamilyShapes {
  std::string family;                 // "BM_StepUpdate"
  size_t record = 0;                  // index into ReportData::records: the family's newest
  std::vector<size_t> other_records;  // older records holding the newest points of other backends
  std::vector<std::string> shapes;    // in file order
  std::vector<std::string> backends;  // in file order
  std::vector<ShapePoint> points;
  double floor_us = -1;                       // the empty-kernel floor, -1 when unknown
  double copy_ceiling_bytes_per_second = -1;  // -1 when unknown
};

struct HistoryPoint {
  size_t record = 0;  // index into ReportData::records
  double time_us = 0;
  bool regression = false;  // slower than the previous record with this benchmark (see docs)
  double change = 0;        // against that record
  double p_value = -1;      // -1: untested (a record without repetitions)
  Verdict verdict = Verdict::kUntested;  // against that record (the first point: untested)
};

struct HistorySeries {
  std::string family, backend, shape, key;
  std::string group;  // the shape without its sizes ("decode bf16", "ring"): the history panel's series
  std::vector<HistoryPoint> points;
};

struct ReportData {
  std::vector<Record> records;  // ordered by date, then commit, then file name
  std::vector<std::string> labels;  // per record: record_label(), with the file name where two read alike
  std::vector<FamilyShapes> families;
  std::vector<HistorySeries> history;  // the backend under test of each family
};

ReportData build_report_data(std::vector<Record> records, const CompareOptions& options);

/// A record's label in plots and tables: "2026-11-30 16:16 c33ba756".
std::string record_label(const Record& record);

}  // namespace qsa::records
