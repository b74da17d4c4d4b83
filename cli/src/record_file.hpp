#pragma once
// Reading a benchmark record file (`bench compare`, `bench export`, `report`) through the bounded
// readers of docs/limits.md, so a folder is not-a-file and /dev/zero too-large, then records' parser.

#include <string>

#include "qsa/records/record.hpp"

namespace qsa::cli {

/// The record at `path`. Errors throw InputError naming `field` (e.g. "baseline"): unreadable,
/// too large, malformed JSON (index: byte offset), and every error of records::parse_record.
records::Record read_record_file(const std::string& path, const std::string& field);

}  // namespace qsa::cli
