#pragma once
// RapidCheck generator of inputs that are valid, or break exactly one rule of SPEC 1.4, to check
// that a backend's validation errors are the contract's (field, index, rule).

#include <rapidcheck.h>

#include "generators/metadata_generators.hpp"
#include "qsa/types.hpp"

namespace qsa::testing {

rc::Gen<MetadataInput> possibly_invalid_metadata_input();

}  // namespace qsa::testing
