#pragma once
// `qsacheck replay --backend NAME FILE.json`: a metadata input (the JSON `qsacheck check` writes
// for a failing batch, the same as `eval metadata --input` reads) judged by the checking engine
// against the reference: status, error (field, index, rule), untouched output, invariants, outputs.

#include <string>

#include "qsa/backend.hpp"

namespace qsa::cli {

/// Whether `path` names a metadata input rather than a scenario file.
bool is_metadata_input_file(const std::string& path);

/// Replays one metadata input on `backend`; prints the verdict and returns the exit code.
int replay_metadata_input(const std::string& path, Backend& backend);

}  // namespace qsa::cli
