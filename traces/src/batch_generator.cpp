#include "qsa/traces/batch_generator.hpp"

namespace qsa::traces {

GeneratedBatch random_metadata_input(Rng& rng, std::optional<CacheKind> kind, int64_t max_tokens) {
  RngChoice choice(rng);
  EdgeBatchOptions options;
  options.kind = kind;
  options.max_tokens = max_tokens;
  return edge_metadata_batch(choice, options);
}

}  // namespace qsa::traces
