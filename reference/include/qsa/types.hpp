#pragma once
// Shared types of the contract (docs/spec.md sections 1-2): the batch of one step, the cache kind,
// block tables with explicit strides, and the metadata outputs. Host-side and owning: every
// backend receives these and validates them with qsa::validate() before computing anything.

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "qsa/k_work.hpp"

namespace qsa {

inline constexpr int64_t kMaxTokens = int64_t{1} << 24;    // N <= 2^24 (SPEC 1.3)
inline constexpr int64_t kMaxRequests = int64_t{1} << 20;  // NR <= 2^20
inline constexpr int64_t kMaxCompressRatio = 1024;         // C <= 1024
inline constexpr int64_t kMaxStorageBlockSize = int64_t{1} << 20;
inline constexpr int64_t kMaxRingCapacity = int64_t{1} << 20;
inline constexpr int64_t kMaxInt32 = 2147483647;

enum class CacheKind { kCompressed, kRing, kPassthrough };

const char* to_string(CacheKind kind);  // "compressed", "ring", "passthrough"
std::optional<CacheKind> parse_cache_kind(std::string_view text);

/// A 2-D int32 table addressed with explicit element strides, like vLLM's block_table_tensor
/// (which may be a column slice of a wider table).
struct BlockTable {
  std::vector<int32_t> storage;  // backing elements; every (r < rows, c < cols) index lies inside
  int64_t rows = 0;              // >= NR
  int64_t cols = 0;              // W, may be 0
  int64_t row_stride = 0;        // elements between rows
  int64_t col_stride = 1;        // elements between columns

  int32_t at(int64_t row, int64_t col) const {
    return storage[static_cast<size_t>(row * row_stride + col * col_stride)];
  }
  /// True when every (row, col) index lies inside storage and the strides are non-negative.
  bool is_well_formed() const;

  /// Dense row-major table; every row must have the same length.
  static BlockTable from_rows(const std::vector<std::vector<int32_t>>& rows);
  /// The same logical table stored column-major (row stride 1, column stride = rows): exercises strides.
  static BlockTable column_major(const std::vector<std::vector<int32_t>>& rows);
};

/// The scheduler's view of one step, shared by both cache groups (SPEC 1.1).
/// qsl and seq_lens are carried as int64 so validate() can report values beyond int32.
struct Batch {
  std::vector<int64_t> query_start_loc;      // [NR + 1] row offsets; [0] == 0, non-decreasing
  std::vector<int64_t> seq_lens;             // [NR] context length after this step (e_j)
  int64_t num_actual_tokens = 0;             // N >= M = query_start_loc[NR]; rows M..N-1 are padding
  std::vector<int64_t> common_slot_mapping;  // [>= N] main KV slot per row; negative on padding
  int64_t reorder_batch_threshold = 1;       // T >= 1

  int64_t num_requests() const {
    return query_start_loc.empty() ? 0 : static_cast<int64_t>(query_start_loc.size()) - 1;
  }
  int64_t num_mapped_tokens() const { return query_start_loc.empty() ? 0 : query_start_loc.back(); }
  int64_t query_len(int64_t j) const { return query_start_loc[j + 1] - query_start_loc[j]; }
  int64_t chunk_start(int64_t j) const { return seq_lens[j] - query_len(j); }  // s_j
};

/// Cache kind and its parameters (SPEC 1.2). Unused parameters are ignored for the kind.
struct CacheKindConfig {
  CacheKind kind = CacheKind::kCompressed;
  std::optional<int64_t>
      compress_ratio;  // C (compressed, required); ring: builder ratio, default 1; passthrough: omitted or 1
  int64_t storage_block_size = 0;           // S (compressed)
  int64_t ring_capacity = 0;                // R (ring)
  std::optional<int64_t> request_capacity;  // compressed: >= NR, default NR

  /// Builder ratio Cb that drives visible_blocks.
  int64_t builder_ratio() const;
};

/// Everything a metadata build needs for one cache group.
struct MetadataInput {
  Batch batch;
  CacheKindConfig cache;
  BlockTable block_table;  // [>= NR, W]: compressed: physical block per logical block; ring: column 0
};

/// The batch split of SPEC 2 (split_decodes_and_prefills with require_uniform=True).
struct BatchSplit {
  int64_t num_decodes = 0;
  int64_t num_decode_tokens = 0;
  int64_t num_prefills = 0;
  int64_t num_prefill_tokens = 0;
  int64_t max_query_len = 0;
  int64_t decode_query_len = 0;
  int64_t max_seq_len = 0;

  bool operator==(const BatchSplit& o) const;
  bool operator!=(const BatchSplit& o) const { return !(*this == o); }
};

/// Per-step metadata of one cache group (SPEC 2). Sized by make_metadata_output().
struct MetadataOutput {
  std::vector<int32_t> token_to_req;       // [N]
  std::vector<int64_t> logical_positions;  // [N]; -1 on padding rows
  std::vector<int32_t> visible_blocks;     // [N]
  std::vector<int64_t> slot_mapping;       // [N]; -1 = no slot
  std::vector<int32_t> k_work_metadata;    // [K * 2] row-major (request, work) pairs; K = 0 unless compressed
  BatchSplit split;
};

/// K = (N + (C-1)·NR) / C k-work rows for the compressed kind, 0 for the others. Defined (without
/// overflow) for invalid inputs too: N, NR and C are clamped to SPEC 1.3's limits first.
int64_t k_work_rows(const MetadataInput& input);

/// Output buffers of the right sizes, every element set to a poison value that no valid output
/// takes, so an element a backend forgets to write cannot pass a comparison. An input validate()
/// rejects gets empty buffers (nothing may be written for it).
MetadataOutput make_poisoned_metadata_output(const MetadataInput& input);
inline constexpr int32_t kPoison32 = static_cast<int32_t>(0xA5A5A5A5u);
inline constexpr int64_t kPoison64 = static_cast<int64_t>(0xA5A5A5A5A5A5A5A5ull);

}  // namespace qsa
