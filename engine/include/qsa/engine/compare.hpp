#pragma once
// Exact comparison of two backends' outputs. A mismatch names the first differing element with
// its request and logical position, both values, and how many elements differ in total.

#include <cstdint>
#include <optional>
#include <string>

#include "qsa/types.hpp"

namespace qsa::engine {

struct Mismatch {
  std::string field;      // e.g. "slot_mapping", "k_work_metadata", "num_decodes"
  int64_t index = -1;     // first differing element (row for per-row outputs), -1 for scalars
  int64_t request = -1;   // request of that row (from the expected token_to_req), -1 if none
  int64_t position = -1;  // its logical position, -1 for padding or non-row fields
  std::string expected;
  std::string actual;
  int64_t count = 0;  // differing elements in this field

  std::string to_string() const;
};

/// Compares every metadata output bit for bit; `expected` is usually the reference's.
std::optional<Mismatch> compare_metadata(const MetadataInput& input, const MetadataOutput& expected,
                                         const MetadataOutput& actual);

}  // namespace qsa::engine
