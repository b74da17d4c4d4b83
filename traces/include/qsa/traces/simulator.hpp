#pragma once
// A seeded simulator of vLLM's v1 scheduler that produces scenarios (scenario.hpp). Each step:
// arrivals join the waiting queue; running requests are scheduled first (decodes of 1 + k rows,
// k <= drafts, or the next prefill chunk), then waiting ones are admitted FIFO while the token
// budget (max_num_batched_tokens), the request cap (max_num_seqs) and the block pool allow, a
// prefix-cache hit letting a first chunk (or a recompute's) start on cached full blocks of its
// family's content, written by a running, finished or preempted request and kept until the pool
// evicts them (least recently freed first; simulator_prefix_cache.cpp); verification
// accepts 1 + a rows of a decode (a <= k drafts, the rest rolled back) and whole prefill chunks;
// requests whose output is complete finish, and block pressure or chance preempts running ones
// (blocks freed, recomputed from position 0 later). Chunks of at most T = 1 + drafts rows come
// first in the batch, and the step is padded for CUDA graphs as the workload's policy says. A
// workload with a request schedule (request_replay.hpp) takes its arrivals, lengths and prefix
// hashes from a log instead of drawing them.
//
// Guarantees (traces/tests/simulator_test.cpp checks them): a chunk starts at the request's
// committed length; its blocks cover every position it writes and every id is below the cache's
// block count; blocks shared by a prefix hit are full of family content some request committed (its
// prompt, or output a later turn's prompt holds) and never written while shared or cached; the ring blocks of one step are distinct; accepted <= length;
// every step has at least one chunk, at most max_num_seqs requests and max_num_batched_tokens
// rows; start + length <= max_position (- 64 with MRoPE); negative common slots only on generated
// positions; request ids increase; everything is a pure function of (workload, seed). The
// step-edges knobs (workloads.hpp) bend some of these on purpose, in the record only: zero-length
// chunks anywhere, a prefill first, one step's -1 entry or dropped column, a last step's ring
// block -1 or past the ring (traces/tests/support/scenario_rules.hpp, EdgeShapes).

#include <cstdint>
#include <memory>

#include "qsa/traces/scenario.hpp"
#include "qsa/traces/workloads.hpp"

namespace qsa::traces {

/// Raised whenever the simulator's steps for an unchanged (workload, seed) change, so that a
/// campaign's settings hash (`check --shard`, `merge`) never joins shards of two simulators.
/// 2: the prefix cache keeps blocks of finished and preempted requests (docs/decisions.md "Prefix cache").
inline constexpr int kSimulatorVersion = 2;

class Simulator {
 public:
  /// Resolves the workload for `seed` (resolve_workload) and queues its initial requests.
  /// Throws InputError when the drawn geometry has no ring capacity (SPEC 3).
  Simulator(const Workload& workload, uint64_t seed);
  ~Simulator();
  Simulator(Simulator&&) noexcept;
  Simulator& operator=(Simulator&&) noexcept;

  /// The next step. Steps with nothing to run are skipped (the next arrival comes at once), so
  /// every step has at least one chunk. Precondition: !done() (throws std::logic_error).
  StepRecord next();

  /// True once a workload with max_requests > 0 has seen all of them end; an open-ended workload
  /// is never done.
  bool done() const;

  /// The scenario's configuration (resolve_workload's).
  const ScenarioConfig& config() const;

  /// Blocks of the prefix cache the pool has handed out again so far (vLLM's evictions: their
  /// content is gone, and a later request with the same chain misses). Not in the scenario's
  /// records, which show only what a block's next owner wrote (PrefixHitTracker).
  int64_t evictions() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// The first `steps` steps (fewer if the simulator is done earlier) with their configuration.
/// Same (workload, seed, steps) -> identical Scenario.
Scenario simulate(const Workload& workload, uint64_t seed, int64_t steps);

}  // namespace qsa::traces
