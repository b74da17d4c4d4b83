#pragma once
// RapidCheck generators of metadata inputs. They over-represent the edge shapes of SPEC 2: one
// request, one token, all padding, zero-length requests in the middle and at the tail, block
// tables with -1 entries and missing columns, column-strided or sliced tables, N much larger than
// M, negative common slots on real rows. Generated values shrink toward small batches.

#include <ostream>

#include <rapidcheck.h>

#include "qsa/types.hpp"

namespace qsa {

/// Shows a generated input as the JSON that `qsacheck eval metadata` reads (RapidCheck's printer).
void showValue(const MetadataInput& input, std::ostream& os);

namespace testing {

/// Valid inputs of any cache kind.
rc::Gen<MetadataInput> arbitrary_metadata_input();

/// Inputs that are valid, or break exactly one rule of SPEC 1.4 (to compare validation errors).
rc::Gen<MetadataInput> possibly_invalid_metadata_input();

}  // namespace testing
}  // namespace qsa
