#pragma once
// Random valid metadata inputs from the project's Rng: the edge-shaped generator
// (edge_batch_generator.hpp) through RngChoice. Used by `qsacheck check`, the invalid batches,
// the differential corpora and the benchmarks.

#include <cstdint>
#include <optional>

#include "qsa/traces/edge_batch_generator.hpp"
#include "qsa/traces/rng.hpp"
#include "qsa/types.hpp"

namespace qsa::traces {

/// Draws one valid input of the given kind (or a random kind when `kind` is empty).
/// `max_tokens` bounds M (rows with a request). Always passes qsa::validate().
GeneratedBatch random_metadata_input(Rng& rng, std::optional<CacheKind> kind = std::nullopt, int64_t max_tokens = 4096);

}  // namespace qsa::traces
