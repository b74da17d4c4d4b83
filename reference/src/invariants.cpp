#include "qsa/invariants.hpp"

#include <algorithm>
#include <sstream>

namespace qsa {
namespace {

std::optional<Violation> fail(const char* invariant, int64_t row, int64_t request, const std::string& message) {
  return Violation{invariant, row, request, message};
}

std::string str(int64_t v) { return std::to_string(v); }

std::optional<Violation> check_sizes(const MetadataInput& in, const MetadataOutput& out) {
  const auto n = static_cast<size_t>(in.batch.num_actual_tokens);
  if (out.token_to_req.size() != n || out.logical_positions.size() != n || out.visible_blocks.size() != n ||
      out.slot_mapping.size() != n)
    return fail("output-size", -1, -1, "per-row outputs must have N = " + str(in.batch.num_actual_tokens) + " entries");
  if (out.k_work_metadata.size() != static_cast<size_t>(2 * k_work_rows(in)))
    return fail("output-size", -1, -1, "k_work_metadata must have K = " + str(k_work_rows(in)) + " rows");
  return std::nullopt;
}

std::optional<Violation> check_rows(const MetadataInput& in, const MetadataOutput& out) {
  const Batch& b = in.batch;
  const int64_t m = b.num_mapped_tokens();
  const int64_t cb = in.cache.builder_ratio();
  for (int64_t t = 0; t < m; ++t) {
    const int64_t j = out.token_to_req[t];
    if (j < 0 || j >= b.num_requests() || b.query_start_loc[j] > t || t >= b.query_start_loc[j + 1])
      return fail("token-to-req", t, j, "row " + str(t) + " is not inside request " + str(j) + "'s rows");
    if (t > 0 && out.token_to_req[t] < out.token_to_req[t - 1])
      return fail("token-to-req-monotone", t, j, "token_to_req decreases at row " + str(t));
    const int64_t p = out.logical_positions[t];
    const bool first_row = t == b.query_start_loc[j];
    if (!first_row && p != out.logical_positions[t - 1] + 1)
      return fail("positions-consecutive", t, j,
                  "position " + str(p) + " does not follow " + str(out.logical_positions[t - 1]));
    if (t == b.query_start_loc[j + 1] - 1 && p != b.seq_lens[j] - 1)
      return fail("positions-last", t, j, "last position " + str(p) + " != e_j - 1 = " + str(b.seq_lens[j] - 1));
    const int64_t v = out.visible_blocks[t];
    if (v < 0 || v > (p + 1) / cb || v > b.seq_lens[j] / cb)
      return fail("visible-blocks", t, j,
                  "visible_blocks " + str(v) + " exceeds the groups closed at position " + str(p));
  }
  for (int64_t t = m; t < b.num_actual_tokens; ++t) {
    if (out.token_to_req[t] != 0 || out.logical_positions[t] != -1 || out.visible_blocks[t] != 0 ||
        out.slot_mapping[t] != -1)
      return fail("padding-inert", t, -1,
                  "padding row must be (token_to_req 0, position -1, visible 0, slot -1), got (" +
                      str(out.token_to_req[t]) + ", " + str(out.logical_positions[t]) + ", " +
                      str(out.visible_blocks[t]) + ", " + str(out.slot_mapping[t]) + ")");
  }
  return std::nullopt;
}

std::optional<Violation> check_slots(const MetadataInput& in, const MetadataOutput& out) {
  const Batch& b = in.batch;
  const BlockTable& table = in.block_table;
  for (int64_t t = 0; t < b.num_mapped_tokens(); ++t) {
    const int64_t slot = out.slot_mapping[t];
    const int64_t j = out.token_to_req[t];
    const int64_t p = out.logical_positions[t];
    if (slot < -1) return fail("slot-sentinel", t, j, "a missing slot must be exactly -1, got " + str(slot));
    if (slot == -1) continue;
    switch (in.cache.kind) {
      case CacheKind::kPassthrough:
        if (slot != b.common_slot_mapping[t])
          return fail("passthrough-slot", t, j,
                      "slot " + str(slot) + " != common slot " + str(b.common_slot_mapping[t]));
        break;
      case CacheKind::kRing: {
        const int64_t r = in.cache.ring_capacity;
        const int64_t kept = std::min(b.query_len(j), r);
        if (t < b.query_start_loc[j + 1] - kept)
          return fail("ring-slot-suffix", t, j, "ring slot on a row before the chunk's last " + str(kept) + " rows");
        // Suffix + address make a request's ring slots distinct (its last min(q, R) positions differ
        // mod R); across requests they are distinct whenever the input gives distinct ring blocks,
        // which the step update's validation demands (rule slots/duplicate).
        if (table.cols == 0 || slot / r != table.at(j, 0) || slot % r != p % r)
          return fail("ring-slot-address", t, j,
                      "ring slot " + str(slot) + " is not row p mod R of the request's ring block");
        break;
      }
      case CacheKind::kCompressed: {
        const int64_t c = *in.cache.compress_ratio;
        const int64_t s = in.cache.storage_block_size;
        if ((p + 1) % c != 0)
          return fail("compressed-slot-closing", t, j, "compressed slot on a row that closes no group");
        if (b.common_slot_mapping[t] < 0)
          return fail("compressed-slot-common", t, j, "compressed slot on a row whose common slot is negative");
        const int64_t g = p / c;
        if (g / s >= table.cols || slot / s != table.at(j, g / s) || slot % s != g % s)
          return fail("compressed-slot-address", t, j,
                      "compressed slot " + str(slot) + " is not group " + str(g) + "'s row");
        break;
      }
    }
  }
  return std::nullopt;
}

std::optional<Violation> check_k_work(const MetadataInput& in, const MetadataOutput& out) {
  if (in.cache.kind != CacheKind::kCompressed) return std::nullopt;
  const Batch& b = in.batch;
  const int64_t c = *in.cache.compress_ratio;
  const int64_t k = k_work_rows(in);
  int64_t row = 0;
  for (int64_t j = 0; j < b.num_requests(); ++j) {
    const int64_t q = b.query_len(j);
    const int64_t items = k_work_items(q, b.seq_lens[j], c);
    for (int64_t w = 0; w < items; ++w, ++row) {
      if (row >= k)
        return fail("k-work-within-k", row, j, "request " + str(j) + " needs more than K = " + str(k) + " rows");
      if (out.k_work_metadata[2 * row] != j || out.k_work_metadata[2 * row + 1] != w)
        return fail("k-work-items", row, j,
                    "k-work row " + str(row) + " is (" + str(out.k_work_metadata[2 * row]) + ", " +
                        str(out.k_work_metadata[2 * row + 1]) + "), expected (" + str(j) + ", " + str(w) + ")");
    }
  }
  for (; row < k; ++row)
    if (out.k_work_metadata[2 * row] != -1 || out.k_work_metadata[2 * row + 1] != -1)
      return fail("k-work-tail", row, -1, "k-work row " + str(row) + " past the items must be (-1, -1)");
  return std::nullopt;
}

std::optional<Violation> check_split(const MetadataInput& in, const MetadataOutput& out) {
  const Batch& b = in.batch;
  const BatchSplit& s = out.split;
  const int64_t nr = b.num_requests();
  if (s.num_decodes < 0 || s.num_decodes > nr || s.num_decodes + s.num_prefills != nr)
    return fail("split-requests", -1, -1, "num_decodes + num_prefills != NR");
  if (s.num_decode_tokens + s.num_prefill_tokens != b.num_actual_tokens || s.num_decode_tokens < 0)
    return fail("split-tokens", -1, -1, "num_decode_tokens + num_prefill_tokens != N");
  if (s.num_prefills > 0 && s.num_decode_tokens != b.query_start_loc[s.num_decodes])
    return fail("split-boundary", -1, s.num_decodes, "decode tokens must end where the first prefill starts");
  if (s.num_prefills == 0 && s.num_decode_tokens != b.num_actual_tokens)
    return fail("split-all-decodes", -1, -1, "with no prefills every row, padding included, is a decode token");
  int64_t max_q = 0;
  int64_t max_e = 0;
  for (int64_t j = 0; j < nr; ++j) {
    max_q = std::max(max_q, b.query_len(j));
    max_e = std::max(max_e, b.seq_lens[j]);
  }
  if (s.max_query_len != max_q) return fail("split-max-query-len", -1, -1, "max_query_len != max q_j");
  if (s.max_seq_len != max_e) return fail("split-max-seq-len", -1, -1, "max_seq_len != max e_j");
  for (int64_t j = 0; j < s.num_decodes; ++j) {
    const int64_t q = b.query_len(j);
    if (q > b.reorder_batch_threshold) return fail("split-decode-threshold", -1, j, "a decode request has q_j > T");
    if (q != 0 && q != s.decode_query_len) return fail("split-decode-uniform", -1, j, "decode query lengths differ");
  }
  return std::nullopt;
}

}  // namespace

std::string to_string(const Violation& v) {
  std::ostringstream os;
  os << v.invariant;
  if (v.row >= 0) os << " at row " << v.row;
  if (v.request >= 0) os << " (request " << v.request << ")";
  os << ": " << v.message;
  return os.str();
}

std::optional<Violation> check_metadata_invariants(const MetadataInput& input, const MetadataOutput& output) {
  if (auto v = check_sizes(input, output)) return v;
  if (auto v = check_rows(input, output)) return v;
  if (auto v = check_slots(input, output)) return v;
  if (auto v = check_k_work(input, output)) return v;
  return check_split(input, output);
}

}  // namespace qsa
