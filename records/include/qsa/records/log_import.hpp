#pragma once
// Converts the text a GPU run left before records existed (run_gpu.sh's summary.txt and the
// benchmarks' console logs; records/tests/fixtures/ keeps the ones records/history/ was made from)
// into records marked "imported": aggregates only, no repetitions, so `bench compare` refuses them
// while `report` draws them.

#include <string>
#include <utility>
#include <vector>

#include "qsa/records/record.hpp"

namespace qsa::records {

struct TextFile {
  std::string path;  // as it should be named in the record (imported_from)
  std::string text;
};

struct ImportedRecord {
  std::string binary;  // "step_update_bench" or "metadata_bench"
  Record record;
};

/// One GPU run: its summary (environment, and the summary tables) and, optionally, the console logs
/// of its benchmarks, which replace the summary's tables for their binary with every aggregate.
/// `commit` overrides the commit the summary names (older summaries name none).
/// Throws InputError (field "summary" or "log", index: the line) when nothing can be read.
std::vector<ImportedRecord> import_gpu_run(const TextFile& summary, const std::vector<TextFile>& logs,
                                           const std::string& commit);

}  // namespace qsa::records
