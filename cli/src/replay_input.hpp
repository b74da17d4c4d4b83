#pragma once
// `qsacheck replay --backend NAME FILE.json`: a metadata input (the JSON `qsacheck check` writes
// for a failing batch, the same as `eval metadata --input` reads) judged by the checking engine
// against the reference: status, error (field, index, rule), untouched output, invariants, outputs.

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "qsa/backend_interface.hpp"
#include "qsa/types.hpp"

namespace qsa::cli {

struct MetadataInputFile {
  std::string path;
  MetadataInput input;
};

/// Whether `path` names a metadata input rather than a scenario file.
bool is_metadata_input_file(const std::string& path);

/// Reads and decodes one metadata input (throws InputError, before anything runs).
MetadataInputFile read_metadata_input_file(const std::string& path);

/// Replays one metadata input on `backend`; prints the verdict to `out`, fills `result` (the file's
/// entry of the JSON report) and returns the exit code.
int replay_metadata_input(const MetadataInputFile& file, Backend& backend, std::ostream& out, nlohmann::json* result);

}  // namespace qsa::cli
