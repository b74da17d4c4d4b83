#include "support/differential.hpp"

#include <algorithm>
#include <cstdlib>

#include "generators/metadata_generators.hpp"
#include "qsa/spec_examples.hpp"
#include "qsa/traces/batch_generator.hpp"
#include "qsa/engine/check_engine.hpp"

namespace qsa::testing {

std::optional<std::string> differential_failure(Backend& backend, const MetadataInput& input) {
  if (const auto finding = engine::check_metadata_against_reference(backend, input))
    return backend.name() + ": " + finding->to_string();
  return std::nullopt;
}

std::vector<CorpusCase> differential_corpus(uint64_t seed, int batches_per_kind, int samples) {
  std::vector<CorpusCase> corpus;
  for (MetadataExample& example : spec_metadata_examples())
    corpus.push_back({"SPEC 8: " + example.name, std::move(example.input)});
  for (CacheKind kind : {CacheKind::kCompressed, CacheKind::kRing, CacheKind::kPassthrough}) {
    for (int i = 0; i < batches_per_kind; ++i) {
      traces::Rng rng = traces::Rng(seed).fork(static_cast<uint64_t>(i) * 3 + static_cast<uint64_t>(kind));
      traces::GeneratedBatch batch = traces::random_metadata_input(rng, kind, i % 4 == 0 ? 4096 : 512);
      corpus.push_back({std::string("batch_generator seed ") + std::to_string(seed) + " #" + std::to_string(i) + " (" +
                            to_string(kind) + ", " + traces::to_string(batch.shape) + ")",
                        std::move(batch.input)});
    }
  }
  for (int i = 0; i < samples; ++i)
    corpus.push_back({"rapidcheck sample seed " + std::to_string(seed) + " #" + std::to_string(i),
                      sample_metadata_input(seed, i, 10 + (i * 37) % 91)});
  return corpus;
}

int corpus_size(int fallback) {
  const char* value = std::getenv("QSA_CORPUS_SIZE");
  if (value == nullptr || *value == '\0') return fallback;
  return std::max(0, std::atoi(value));
}

}  // namespace qsa::testing
