#pragma once
// fuzz_metadata's input: bytes -> a metadata input. Most decode to a valid batch in one of the edge
// shapes the property generators favour (one token, all padding, uniform decodes with padded
// requests, decodes then prefills, zero-length requests inside, a long prefill, N much larger than
// M, random; starts near the int32 limit, negative common slots on real rows, block tables with -1
// entries, missing columns, column-major or sliced storage); some have one or more fields replaced
// by arbitrary values, so every rule of SPEC 1.4 is reached.

#include <optional>
#include <string>

#include "fuzz_support.hpp"
#include "qsa/types.hpp"

namespace qsa::fuzz {

MetadataInput decode_metadata_input(Decoder& in);

/// SPEC 1.4's verdict on an input, computed here independently of qsa::validate() (plus the
/// block_table / malformed rule of docs/decisions.md): the field and rule of the first failure,
/// or nullopt when the input is valid.
struct ExpectedError {
  std::string field;
  std::string rule;
};
std::optional<ExpectedError> spec_validation(const MetadataInput& input);

/// Whether every (row, col) of the table lies inside its storage (overflow-safe).
bool block_table_well_formed(const BlockTable& table);

}  // namespace qsa::fuzz
