#pragma once
// Invariant checkers of SPEC 7 that look at one step's metadata (7.4). They never rebuild the
// metadata: each checks a property that any correct output has, so they stay independent of the
// reference builder and catch a bug that both a backend and the builder might share.

#include <cstdint>
#include <optional>
#include <string>

#include "qsa/types.hpp"

namespace qsa {

/// One broken invariant: which one, where (row and request, -1 when not applicable), and why.
struct Violation {
  std::string invariant;  // short identifier, e.g. "padding-inert", "ring-slot-distinct"
  int64_t row = -1;
  int64_t request = -1;
  std::string message;
};

std::string to_string(const Violation& violation);

/// Checks SPEC 7.4 (and the address rules of SPEC 2 that can be checked locally) on the output
/// of a metadata build for a *valid* input. Returns the first violation in row order, or nullopt.
std::optional<Violation> check_metadata_invariants(const MetadataInput& input, const MetadataOutput& output);

}  // namespace qsa
