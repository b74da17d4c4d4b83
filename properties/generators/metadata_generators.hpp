#pragma once
// RapidCheck generators of valid metadata inputs (SPEC 1), biased toward the edges of SPEC 2:
// one request, one token, all padding, zero-length requests in the middle and at the tail,
// block tables with -1 entries and missing columns, column-major and row-sliced tables, N much
// larger than M, negative common slots on real rows. Every value shrinks toward the small end.

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
