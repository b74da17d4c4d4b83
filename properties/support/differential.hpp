#pragma once
// Differential comparison of a backend with the reference, and the fixed corpus the GPU
// differential suite and the planted-bug tests share. Scenario engines reuse
// differential_failure() step by step: every step of a scenario is one MetadataInput.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "qsa/backend_interface.hpp"
#include "qsa/types.hpp"

namespace qsa::testing {

/// The checking engine's verdict (engine/check_engine.hpp) on `backend` against the reference for
/// `input`: status, error (field, index, rule), untouched output on an error, the SPEC 7.4
/// invariants, every output bit for bit. Returns the finding as text (its key first), or nullopt.
std::optional<std::string> differential_failure(Backend& backend, const MetadataInput& input);

struct CorpusCase {
  std::string origin;  // e.g. "SPEC 8: compressed", "batch_generator seed 1 #17 (mixed)", "rapidcheck sample 3"
  MetadataInput input;
};

/// The fixed differential corpus: the SPEC 8 examples, `batches_per_kind` batches of
/// traces::random_metadata_input for every kind, and `samples` draws of the RapidCheck
/// generators (properties/generators). Deterministic for a given seed.
std::vector<CorpusCase> differential_corpus(uint64_t seed, int batches_per_kind, int samples);

/// Corpus sizes for this run: QSA_CORPUS_SIZE in the environment (batches per kind; samples are
/// the same number), else `fallback`. The sanitizer runs of the GPU bundle set it small.
int corpus_size(int fallback);

}  // namespace qsa::testing
