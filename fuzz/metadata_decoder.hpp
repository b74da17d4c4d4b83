#pragma once
// fuzz_metadata's input: bytes -> a metadata input. Every input decodes to a valid batch of the
// edge-shaped generator (qsa/traces/edge_batch_generator.hpp, its decisions read through
// FuzzedDataChoice); about one in four then has one or more fields replaced by arbitrary values,
// so every rule of SPEC 1.4 is reached. Format 2: the inputs of format 1 decode to
// other batches (fuzz/README.md).

#include <optional>
#include <string>

#include "fuzz_support.hpp"
#include "qsa/types.hpp"

namespace qsa::fuzz {

MetadataInput decode_metadata_input(Decoder& in);

/// SPEC 1.4's verdict on an input, computed here independently of qsa::validate() (plus the
/// block_table / malformed rule of docs/decisions.md): the field and rule of the first failure,
/// or nullopt when the input is valid. Deliberately not read from reference's rule table
/// (qsa/input_fields.hpp), which validate(), the invalid-batch generator and the input-space
/// inventory share: a second reading of the SPEC is what lets this target catch a wrong row there.
struct ExpectedError {
  std::string field;
  std::string rule;
};
std::optional<ExpectedError> spec_validation(const MetadataInput& input);

/// Whether every (row, col) of the table lies inside its storage (overflow-safe).
bool block_table_well_formed(const BlockTable& table);

}  // namespace qsa::fuzz
