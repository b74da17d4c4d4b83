#pragma once
// Types of the step update (SPEC 4-5): the paged caches with explicit strides, the inputs of one
// step for both cache groups, and its outputs. Host-side and owning, like types.hpp.

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "qsa/cache_bytes.hpp"
#include "qsa/numerics.hpp"
#include "qsa/types.hpp"

namespace qsa {

enum class StoreDtype { kBf16, kFp8E4m3 };
const char* to_string(StoreDtype dtype);  // "bf16", "fp8_e4m3"
inline int element_bytes(StoreDtype dtype) { return dtype == StoreDtype::kBf16 ? 2 : 1; }

/// Geometry of a paged side cache (SPEC 4): `num_blocks` blocks of `rows` rows of `width`
/// elements. Slot s addresses block s / rows, row s mod rows; s is past the cache iff
/// s >= num_blocks * rows. Strides are in elements; the block stride may exceed rows * width.
struct CacheLayout {
  int64_t num_blocks = 0;
  int64_t rows = 0;          // S (compressed) or R (ring)
  int64_t width = 0;         // D, or P + 12 for a ring that caches positions
  int64_t block_stride = 0;  // >= rows * row_stride
  int64_t row_stride = 0;    // >= width
  int element_bytes = 2;     // 2 (bf16) or 1 (fp8 e4m3fn)

  int64_t size_bytes() const { return num_blocks * block_stride * element_bytes; }
  bool past_the_cache(int64_t slot) const { return slot >= num_blocks * rows; }
  /// Byte offset of element `element` of the row at `slot` (slot must be in the cache).
  int64_t byte_offset(int64_t slot, int64_t element) const {
    return ((slot / rows) * block_stride + (slot % rows) * row_stride + element) * element_bytes;
  }
  /// Dense layout (no padding between rows or blocks).
  static CacheLayout dense(int64_t num_blocks, int64_t rows, int64_t width, int element_bytes);
};

/// What lets a backend that keeps its own copy of a cache between steps (a worker's shared memory,
/// a device) move only what changed, and lets the runner skip the whole-cache comparison of SPEC
/// 7.5 when that backend has compared its whole copy itself (docs/decisions.md "Cache journal").
/// The owner of the caches that sets `journaled` records every byte range it writes in
/// `host_edits` (note_host_edit()); a backend that brought its copy up to date stamps it with a
/// fresh token (mark_synced()). While the token is the backend's own, its copy equals these bytes
/// outside `host_edits`; any other token (a copy of the caches used elsewhere since, an owner that
/// does not journal, too many edits) means a whole comparison or copy.
struct CacheJournal {
  bool journaled = false;
  uint64_t token = 0;                  // 0: no backend's copy is known to match
  std::vector<ByteRange> host_edits;   // since `token`, in the order written, possibly overlapping
  /// Set by the backend after a step when it compared its whole copy with the bytes before the step:
  /// every byte range the step changed (their union holds every changed byte). The runner clears it
  /// before each call; unset means nothing is known.
  std::optional<std::vector<ByteRange>> kernel_writes;
};

/// A cache and its bytes ([layout.size_bytes()]). Byte order of bf16 elements is little-endian.
/// The bytes are dense to a backend; their memory follows the pages written (cache_bytes.hpp).
struct CacheBuffer {
  CacheLayout layout;
  CacheBytes bytes;
  CacheJournal journal;
};

/// Records that the owner wrote [offset, offset + bytes) of `cache` (nothing unless journaled).
/// Past kMaxHostEdits ranges the journal gives up: the next backend call compares or copies whole.
void note_host_edit(CacheBuffer& cache, size_t offset, size_t bytes);
inline constexpr size_t kMaxHostEdits = 4096;
/// A token no other copy of any cache carries (process-wide, never 0).
uint64_t new_cache_token();
/// Whether the backend whose copy was last stamped `token` may bring it up to date from `host_edits`.
inline bool journal_in_sync(const CacheBuffer& cache, uint64_t token) {
  return cache.journal.journaled && token != 0 && cache.journal.token == token;
}
/// After a backend brought its copy up to date: stamps the cache with `token` and clears the edits.
inline void mark_synced(CacheBuffer& cache, uint64_t token) {
  cache.journal.token = token;
  cache.journal.host_edits.clear();
}

/// Width P + 12 of a ring row that caches positions, P = 4 * ceil(D / 4) (SPEC 4).
inline int64_t ring_position_offset(int64_t head_dim) { return 4 * ((head_dim + 3) / 4); }
inline int64_t ring_row_width(int64_t head_dim, bool ring_positions) {
  return ring_positions ? ring_position_offset(head_dim) + 12 : head_dim;
}

/// The part of a step update that is fixed for a model and cache configuration (SPEC 5, 9).
struct StepConfig {
  int64_t compress_ratio = 4;                  // C
  int64_t storage_block_size = 0;              // S
  int64_t ring_capacity = 0;                   // R
  int64_t head_dim = 0;                        // D, a power of two in [32, 512]
  int64_t rotary_dim = 0;                      // rd, even, 2 <= rd <= D
  int64_t num_heads = 0;                       // HQ
  float eps = 1e-6f;                           // RMSNorm epsilon (> 0, finite), the same for Q and K
  MropeSections mrope_sections;                // (sec_t, sec_h, sec_w) summing to rd / 2, or absent
  bool ring_positions = false;                 // the ring caches (t, h, w) after each key
  StoreDtype store_dtype = StoreDtype::kBf16;  // compressed cache and q_out
  int64_t max_position = 0;                    // rows of cos_sin
  std::shared_ptr<const std::vector<Bf16>>
      cos_sin;            // [max_position, rd]: cos(p·θ_i), i < rd/2, then sin; shared, never copied
  std::vector<Bf16> w_k;  // [D] key norm weight
  std::vector<Bf16> w_q;  // [D] query norm weight

  const Bf16* cos_sin_data() const { return cos_sin ? cos_sin->data() : nullptr; }
  size_t cos_sin_size() const { return cos_sin ? cos_sin->size() : 0; }
};

/// Everything one step update reads (SPEC 5). The metadata of both groups is derived from
/// `batch` with the compressed group (C, S, block_table) and the ring group (R, ring_block_table).
struct StepInput {
  StepConfig config;
  Batch batch;                     // shared qsl, seq_lens, N, common slots, T
  BlockTable block_table;          // compressed group: [>= NR, W] physical block per logical block
  BlockTable ring_block_table;     // ring group: column 0 is the request's ring block
  std::vector<Bf16> keys;          // [N, D] raw projected keys
  std::vector<Bf16> queries;       // [N, HQ, D]
  int position_axes = 1;           // 1: positions [N]; 3: positions [3, N] (t, h, w), axis-major
  std::vector<int64_t> positions;  // [position_axes * N]

  int64_t num_tokens() const { return batch.num_actual_tokens; }
  /// (t, h, w) of row t; a 1-D position p means (p, p, p).
  std::array<int64_t, 3> row_positions(int64_t t) const;
  /// The metadata inputs of the two groups.
  MetadataInput compressed_metadata_input() const;
  MetadataInput ring_metadata_input() const;
};

/// The two side caches a step reads and writes in place.
struct StepCaches {
  CacheBuffer ring;        // bf16 rows of ring_row_width(D, ring_positions) elements
  CacheBuffer compressed;  // rows of D elements in the store dtype
};

enum class StepStatus {
  kOk,
  kPositionOutOfRange,  // a group position read from the ring tail lay outside [0, max_position)
};
const char* to_string(StepStatus status);  // "ok", "position-out-of-range"

struct StepOutput {
  StepStatus step_status = StepStatus::kOk;
  std::vector<uint8_t> q_out;  // [N, HQ, D] in the store dtype (2 bytes per element for bf16)
  /// A kernel that builds its own metadata for its step update (the plugin feature
  /// STEP_USES_METADATA, a worker's "step_uses_metadata"): the metadata it gave the step,
  /// [0] the compressed group's and [1] the ring group's (SPEC 2), for the checking engine to
  /// judge like any metadata. Empty for every other kernel.
  std::vector<MetadataOutput> step_metadata;
};

/// Output sized for the input and poisoned, so an element a backend does not write cannot pass.
StepOutput make_poisoned_step_output(const StepInput& input);
inline constexpr uint8_t kPoisonByte = 0xA5;

}  // namespace qsa
