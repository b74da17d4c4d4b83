#pragma once
// A scenario: a configuration, then a sequence of steps. Each step lists the chunks that were
// scheduled (request, first position, rows, how many rows verification accepted, the request's
// blocks), the CUDA-graph padding, and the events after it (finished, preempted). Everything a
// step's inputs need is derivable from this and the seed (traces/content.hpp), so a scenario file
// replays exactly, and removing one request from every step leaves a valid scenario (the shrinker
// relies on that: requests are independent).

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "qsa/numerics.hpp"
#include "qsa/ring_capacity.hpp"
#include "qsa/step_types.hpp"

namespace qsa::traces {

/// The newest row content version (traces/content.hpp), the one new scenarios get. Version 1 has
/// plain rows only; version 2 adds the rounding-boundary and special-value classes; version 3 adds
/// stale padding (traces/stale_padding.hpp) and the runner's rejected calls before some steps;
/// version 4 adds the rows that separate SPEC 6's numerical alternatives and tiny RoPE table
/// entries (traces/alternative_content.hpp); version 5 adds the norm rows built on bf16 ties for
/// the three norm alternatives no drawn row separates (docs/content.md). A scenario file of format
/// version V replays with content version V.
inline constexpr int kContentVersion = 5;

/// Block ids from here to INT32_MAX are "far": past any cache, on purpose (SPEC 5 skips their
/// groups). The `edges` workload gives some requests such blocks; a scenario file may name them,
/// while an id between num_compressed_blocks and here is still refused as a mistake.
inline constexpr int64_t kFarBlockFloor = 2147483647 - (int64_t{1} << 24);

/// How a step's block tables are stored (SPEC 1.1 allows any row and column strides).
enum class BlockTableLayout {
  kRows,         // dense row-major, NR rows
  kColumnMajor,  // row stride 1, column stride = rows
  kColumnSlice,  // columns [0, W) of a table 3 columns wider: row stride W + 3
};
const char* to_string(BlockTableLayout layout);

/// Fixed for a whole scenario (SPEC 9 gives the real values).
struct ScenarioConfig {
  uint64_t seed = 1;                      // content seed: keys, queries, positions
  int content_version = kContentVersion;  // 1 to 5: which content functions make the rows
  std::string workload = "default";       // informational: the model that generated the steps

  int64_t compress_ratio = 4;          // C
  int64_t block_size = 16;             // B (attention block size); S = B / C
  int64_t num_speculative_tokens = 3;  // drafts per decode step
  RingRule ring_rule = RingRule::kSeed;
  int64_t ring_capacity = 8;  // R from ring_capacity(C, drafts, B, rule); kept for replay

  int64_t head_dim = 32;    // D
  int64_t rotary_dim = 16;  // rd
  int64_t num_heads = 2;    // HQ
  bool mrope = false;       // 3-axis positions, interleaved sections, ring caches positions
  /// With mrope: these sections (t, h, w), summing to rd / 2, instead of the model's proportions
  /// (the `edges` workload draws splits such as (0, hp, 0) or (hp - 1, 1, 0)).
  MropeSections mrope_split;
  StoreDtype store_dtype = StoreDtype::kBf16;
  float eps = 1e-6f;
  double rope_theta = 1e7;
  int64_t max_position = 4096;  // rows of the RoPE table; every position lies below
  /// The norm weights get a NaN (w_k[1]), -inf (w_q[2]), +inf (w_k[7]) and -0 (w_k[4], w_q[5]).
  bool special_weights = false;

  // The memory layout of the step inputs (the `step-edges` workload varies it; none changes a value).
  BlockTableLayout block_table_layout = BlockTableLayout::kRows;  // both tables, compressed and ring
  int64_t block_table_extra_rows = 0;  // rows past NR (a table sized for max_num_seqs), zeros
  int64_t slot_mapping_extra = 0;      // common_slot_mapping entries past N (a persistent buffer), stale slots
  int64_t compressed_row_pad = 0;      // elements past each compressed row (row stride D + pad)
  int64_t compressed_block_pad = 0;    // elements past each block's rows (pages packed beside others)
  int64_t ring_row_pad = 0;
  int64_t ring_block_pad = 0;

  int64_t num_compressed_blocks = 256;  // compressed cache size in blocks of S rows
  int64_t num_ring_blocks = 64;         // ring cache size in blocks of R rows
  int64_t max_num_batched_tokens = 512;
  int64_t max_num_seqs = 32;

  int64_t storage_block_size() const { return block_size / compress_ratio; }
  /// MRoPE sections: mrope_split when set, else rd / 2 pairs in the real model's proportions
  /// (11, 11, 10 for rd = 64).
  MropeSections mrope_sections() const;
  /// The static half of every step's input (norm weights and the RoPE table from the seed).
  StepConfig step_config() const;

 private:
  void add_special_weights(StepConfig* c) const;  // content version 2
};

/// One request's part of one step.
struct ChunkRecord {
  int64_t request = 0;                         // scenario-unique id
  int64_t family = -1;                         // prompt family (shared prompt content), -1 for a unique prompt
  int64_t prompt_len = 0;                      // positions below are prompt tokens
  int64_t start = 0;                           // s_j: first position (the committed length before the step)
  int64_t length = 0;                          // q_j rows
  int64_t accepted = 0;                        // leading rows whose keys are committed after verification (<= length)
  std::vector<int32_t> blocks;                 // compressed block table row (physical block per logical block)
  int32_t ring_block = -1;                     // the request's ring block
  std::vector<int64_t> negative_common_slots;  // row offsets in the chunk whose common slot is -1
  /// A fresh (or preempted) request's first chunk whose positions [0, start) are already in the
  /// caches: before the step the runner writes the rows the reference leaves after prefilling them
  /// (docs/workloads.md "Pre-filled context"); no prefix hit, the blocks are the request's own.
  bool prefilled = false;
  /// With a family, committed positions below max(prompt_len, family_len) hold the family's content:
  /// past the prompt when a later turn's prompt holds this request's output (a replayed log), so
  /// that turn's prefix hit reads the bytes this one committed (docs/decisions.md "Prefix cache").
  int64_t family_len = 0;
};

struct StepRecord {
  std::vector<ChunkRecord> chunks;      // in batch order (decodes first)
  int64_t padded_requests = 0;          // zero-length requests at the tail (CUDA-graph padding)
  int64_t padding_tokens = 0;           // N - M
  int64_t reorder_batch_threshold = 1;  // T
  std::vector<int64_t> finished;        // requests that finish after this step
  std::vector<int64_t> preempted;       // requests preempted after this step (recomputed from 0 later)

  /// Rows that verification rejects (drafts past each chunk's accepted rows).
  int64_t rejected_rows() const {
    int64_t rows = 0;
    for (const ChunkRecord& c : chunks) rows += c.length - c.accepted;
    return rows;
  }
};

struct Scenario {
  ScenarioConfig config;
  std::vector<StepRecord> steps;
};

/// What a scenario exercised (the coverage counts of `qsacheck check`); docs/workloads.md
/// "Coverage figures" defines each one.
struct Coverage {
  int64_t steps = 0;
  int64_t rows = 0;
  int64_t requests = 0;
  int64_t ring_wraps = 0;  // committed positions p >= R with p mod R = 0 (a row over the ring's first slot again)
  int64_t drafts_rejected = 0;
  int64_t preemptions = 0;
  int64_t prefix_hits = 0;  // chunks starting past 0 on a block another request wrote (not a recompute)
  int64_t padded_steps = 0;
  int64_t groups_closed = 0;
  int64_t negative_common_slots = 0;
  int64_t mrope_steps = 0;
  int64_t fp8_steps = 0;

  Coverage& operator+=(const Coverage& other);
};

Coverage coverage_of(const Scenario& scenario);

/// coverage_of one step at a time, for a run that reports as it goes (linear in the steps).
class CoverageCounter {
 public:
  explicit CoverageCounter(const ScenarioConfig& config) : config_(config) {}
  void add(const StepRecord& step);
  const Coverage& coverage() const { return coverage_; }

 private:
  ScenarioConfig config_;
  Coverage coverage_;
  std::set<int64_t> requests_;
  std::map<int32_t, int64_t> writer_;  // physical compressed block -> the request that last wrote a row into it
};

}  // namespace qsa::traces
