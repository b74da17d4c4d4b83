#pragma once
// RapidCheck generators of valid metadata inputs (SPEC 1): the edge-shaped generator
// (qsa/traces/edge_batch_generator.hpp) drawing through RapidCheckChoice, so every value shrinks
// toward the small end.

#include <iosfwd>
#include <optional>

#include <rapidcheck.h>

#include "qsa/types.hpp"

namespace qsa {

/// RapidCheck prints a counterexample through this (found by argument-dependent lookup): the
/// input as `qsacheck eval metadata` JSON, then the block table's layout.
void showValue(const MetadataInput& input, std::ostream& os);

}  // namespace qsa

namespace qsa::testing {

/// Valid inputs of `kind`, or of any kind when empty. Every generated input passes qsa::validate().
rc::Gen<MetadataInput> metadata_inputs(std::optional<CacheKind> kind = std::nullopt);

/// The same inputs drawn outside a property (for fixed corpora): sample `index` of the
/// generator seeded with `seed`, at RapidCheck size `size` (0..100).
MetadataInput sample_metadata_input(uint64_t seed, int index, int size = 50,
                                    std::optional<CacheKind> kind = std::nullopt);

}  // namespace qsa::testing
