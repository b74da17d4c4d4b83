#pragma once
// CUDA-graph padding the way vLLM's v1 runner does it: a step of M rows runs a graph captured for
// N >= M tokens, and the rows M .. N-1 are padding. A uniform decode batch (every request the
// same query length q <= T) uses a full graph and may also get zero-length padded requests at
// the tail; other batches get token-only padding (piecewise graphs) or none (eager).

#include <cstdint>
#include <vector>

#include "qsa/traces/rng.hpp"
#include "qsa/traces/scenario.hpp"

namespace qsa::traces {

enum class PaddingPolicy {
  kNone,  // eager: N = M always
  kVllm,  // uniform decode steps always padded to a capture size (with padded requests 3 times in
          // 4, tokens only otherwise); mixed steps padded to a capture size, tokens only, half the time
};

const char* to_string(PaddingPolicy policy);

/// vLLM's default capture sizes up to `max_tokens`: 1, 2, 4, every 8 from 8 to 248, every 16 from
/// 256; `max_tokens` itself is appended when missing so that every step can be padded.
/// Example: 40 -> {1, 2, 4, 8, 16, 24, 32, 40}.
std::vector<int64_t> cuda_graph_capture_sizes(int64_t max_tokens);

/// The smallest capture size >= tokens, or `tokens` when it exceeds them all.
int64_t padded_token_count(const std::vector<int64_t>& capture_sizes, int64_t tokens);

/// True when every chunk has one query length q with 1 <= q <= T (SPEC 2 split rule 3 then makes
/// the whole padded batch decodes).
bool is_uniform_decode(const StepRecord& step);

/// Sets step.padding_tokens and step.padded_requests (the chunks and T must already be final).
/// Padded requests never take the batch beyond `max_num_seqs` requests.
void pad_for_cuda_graphs(StepRecord& step, PaddingPolicy policy, const std::vector<int64_t>& capture_sizes,
                         int64_t max_num_seqs, Rng& rng);

}  // namespace qsa::traces
