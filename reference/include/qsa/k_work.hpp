#pragma once
// The k-work counts of SPEC 2, written once for the host and the device (QSA_HOST_AND_DEVICE).

#include <cstdint>

#include "qsa/host_device.hpp"

namespace qsa {

/// K = (N + (C - 1)·NR) / C: the k_work_metadata rows of a compressed batch of N token rows and NR
/// requests. Callers pass operands within SPEC 1.3's limits (qsa::k_work_rows(MetadataInput)
/// clamps them first). Example: N = 6, NR = 3, C = 4 -> 3.
QSA_HOST_AND_DEVICE constexpr int64_t k_work_rows(int64_t num_tokens, int64_t num_requests, int64_t compress_ratio) {
  return (num_tokens + (compress_ratio - 1) * num_requests) / compress_ratio;
}

/// n_j: the work items of request j with q_j rows ending at e_j: 0 for q_j = 0, else
/// max(1, e_j/C - (e_j - q_j)/C) (the groups the chunk closes; one item at least, which commits
/// the chunk's ring rows). Example: q = 2, e = 9, C = 4 -> 1 (no group closes).
QSA_HOST_AND_DEVICE constexpr int64_t k_work_items(int64_t query_len, int64_t seq_len, int64_t compress_ratio) {
  if (query_len == 0) return 0;
  const int64_t closing = seq_len / compress_ratio - (seq_len - query_len) / compress_ratio;
  return closing > 1 ? closing : 1;
}

}  // namespace qsa
