#pragma once
// Private to the simulator's sources: the state of the simulated scheduler between steps.

#include <deque>
#include <unordered_map>
#include <vector>

#include "qsa/traces/block_pool.hpp"
#include "qsa/traces/request_replay.hpp"
#include "qsa/traces/simulator.hpp"

namespace qsa::traces {

struct SimRequest {
  int64_t id = 0;
  int64_t family = -1;
  int64_t prompt_len = 0;
  int64_t family_len = 0;       // ChunkRecord::family_len: family content past the prompt (a log's next turn)
  int64_t final_len = 0;        // committed length once every output token is produced: prompt + output - 1
  int64_t committed = 0;        // L
  int64_t prefill_target = 0;   // positions below are prefilled in chunks: the prompt, or after a
                                // preemption everything committed before it (the recompute)
  bool started = false;         // scheduled before
  int64_t logged = -1;          // index into the replayed log's arrivals, -1 for a drawn request
  std::vector<int32_t> blocks;  // [>= ceil(L / B)] compressed block table row
  int32_t ring_block = -1;      // held while running
  std::vector<uint64_t> chain;  // prefix-cache key of each full block of family content (its token chain)
  size_t cached_blocks = 0;     // leading blocks offered to the prefix cache since the last (re)start
};

/// One scheduled chunk before verification.
struct Planned {
  size_t running_index = 0;
  bool decode = false;  // 1 + drafts rows at the committed length of a fully prefilled request
  int64_t drafts = 0;   // k, decodes only
};

struct Simulator::State {
  State(const Workload& workload, uint64_t seed);

  // simulator.cpp
  void arrive();
  void add_request();
  void add_logged_request(size_t index);  // the replayed log's arrival `index`, never dropped

  // simulator_schedule.cpp: fills step.chunks (in scheduling order) and `planned`.
  void schedule(StepRecord& step, std::vector<Planned>& planned);
  int64_t grow_blocks(SimRequest& request, int64_t rows);  // rows coverable from the committed length

  // simulator_prefix_cache.cpp: vLLM's prefix cache (docs/decisions.md "Prefix cache").
  void chain_family_blocks(SimRequest& request) const;  // fills request.chain
  void take_prefix_hit(SimRequest& request);
  void cache_full_blocks(SimRequest& request);  // after a commit: its new full blocks become hittable
  void forget_evicted(int32_t block);           // after an allocation: the block's old content is gone
  bool forget(int32_t block);                   // drops the block's cache entry; false when it had none
  void uncache(int32_t block);                  // a block whose rows are not all written (a step edge)

  // simulator_step_edges.cpp: the step shapes of the workload's edge knobs, after padding.
  void shape_step_edges(StepRecord& step);
  void drop_compressed_block(ChunkRecord& chunk, size_t others_width);

  // simulator_events.cpp
  void verify(StepRecord& step, const std::vector<Planned>& planned);
  void mark_negative_common_slots(ChunkRecord& chunk);
  void retire_finished(StepRecord& step);
  void preempt(StepRecord& step);
  void preempt_at(StepRecord& step, size_t running_index);
  void release(SimRequest& request);
  int64_t next_step_block_demand() const;

  /// The highest of the far block ids (workload.far_block_per_mille): past any cache.
  static constexpr int64_t kFarBlockTop = 2147483647;
  /// A block from the pool (not a far one): only those are shared and released.
  bool in_pool(int32_t block) const { return block < config.num_compressed_blocks; }

  Workload workload;  // resolved: one geometry, complete config
  const ScenarioConfig& config;
  Rng arrival_rng, length_rng, draft_rng, preempt_rng, padding_rng, negative_rng, family_rng;
  Rng far_rng, zero_first_rng;  // the edges knobs: streams of their own, so other workloads draw as before
  Rng step_edge_rng;            // the step-edges knobs
  BlockPool compressed_pool;
  BlockPool ring_pool;
  std::vector<int64_t> capture_sizes;
  std::deque<SimRequest> waiting;          // FIFO; preempted requests return at the front
  std::vector<SimRequest> running;         // in admission order (the newest is preempted first)
  std::vector<int64_t> family_prompt_len;  // [num_families] base prompt length, 0 until first drawn
  int64_t next_id = 0;
  int64_t arrived = 0;
  int64_t clock_us = 0;      // a replayed log's simulated time: replay_step_us per step, idle time included
  size_t next_logged = 0;    // the replayed log's next arrival
  std::unordered_map<uint64_t, int32_t> prefix_cache;  // chain key -> the block holding that content
  std::unordered_map<int32_t, uint64_t> cached_key;    // the inverse, for eviction
  int64_t evictions = 0;  // cached blocks the pool handed out again (Simulator::evictions())
};

}  // namespace qsa::traces
