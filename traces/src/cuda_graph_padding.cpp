#include "qsa/traces/cuda_graph_padding.hpp"

#include <algorithm>

namespace qsa::traces {

const char* to_string(PaddingPolicy policy) {
  switch (policy) {
    case PaddingPolicy::kNone:
      return "none";
    case PaddingPolicy::kVllm:
      return "vllm";
  }
  return "unknown";
}

std::vector<int64_t> cuda_graph_capture_sizes(int64_t max_tokens) {
  std::vector<int64_t> sizes;
  auto add = [&](int64_t s) {
    if (s <= max_tokens) sizes.push_back(s);
  };
  for (int64_t s : {1, 2, 4}) add(s);
  for (int64_t s = 8; s < 256; s += 8) add(s);
  for (int64_t s = 256; s <= max_tokens; s += 16) add(s);
  if (max_tokens >= 1 && (sizes.empty() || sizes.back() != max_tokens)) sizes.push_back(max_tokens);
  return sizes;
}

int64_t padded_token_count(const std::vector<int64_t>& capture_sizes, int64_t tokens) {
  auto it = std::lower_bound(capture_sizes.begin(), capture_sizes.end(), tokens);
  return it == capture_sizes.end() ? tokens : *it;
}

bool is_uniform_decode(const StepRecord& step) {
  if (step.chunks.empty()) return false;
  const int64_t q = step.chunks.front().length;
  if (q < 1 || q > step.reorder_batch_threshold) return false;
  return std::all_of(step.chunks.begin(), step.chunks.end(), [q](const ChunkRecord& c) { return c.length == q; });
}

void pad_for_cuda_graphs(StepRecord& step, PaddingPolicy policy, const std::vector<int64_t>& capture_sizes,
                         int64_t max_num_seqs, Rng& rng) {
  step.padding_tokens = 0;
  step.padded_requests = 0;
  if (policy == PaddingPolicy::kNone) return;
  int64_t rows = 0;
  for (const ChunkRecord& c : step.chunks) rows += c.length;
  const int64_t n = padded_token_count(capture_sizes, rows);
  if (is_uniform_decode(step)) {
    step.padding_tokens = n - rows;
    // A full graph for uniform decodes is captured for N / q requests; vLLM pads the request count
    // too. Token-only padding of a uniform batch happens as well (piecewise fallback).
    if (rng.chance(3, 4)) {
      const int64_t q = step.chunks.front().length;
      const int64_t room = max_num_seqs - static_cast<int64_t>(step.chunks.size());
      step.padded_requests = std::max<int64_t>(0, std::min(step.padding_tokens / q, room));
    }
  } else if (rng.chance(1, 2)) {
    step.padding_tokens = n - rows;
  }
}

}  // namespace qsa::traces
