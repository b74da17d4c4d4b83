#pragma once
// What a scenario's prefix hits read (docs/workloads.md "Coverage figures", and the prefix-cache
// rows of the input-space inventory): fed the steps of one scenario in order, it follows which
// request last wrote each compressed block, how many requests have owned it and which live
// requests hold it, and classifies every hit (a (re)start past 0 on blocks another request wrote)
// by what it reads. Linear in the chunks' rows and block-table entries.

#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>

#include "qsa/traces/scenario.hpp"

namespace qsa::traces {

struct PrefixHitCounts {
  int64_t hits = 0;             // (re)starts past 0 whose shared blocks another request wrote
  int64_t hit_blocks = 0;       // blocks those hits read
  int64_t hit_positions = 0;    // positions those blocks hold (hit_blocks * B of each scenario)
  int64_t on_finished = 0;      // a hit reading a block whose writer no longer holds it (finished or preempted)
  int64_t blocks_on_finished = 0;  // blocks hits read whose writer no longer holds them
  int64_t deeper_than_one = 0;  // a hit of two blocks or more
  int64_t after_eviction = 0;   // a hit reading a block id an earlier owner wrote before its writer did
  int64_t shared_by_live = 0;   // a hit reading a block two or more other live requests hold
  std::map<int64_t, int64_t> depth;  // hit depth in blocks -> hits

  PrefixHitCounts& operator+=(const PrefixHitCounts& other);
};

class PrefixHitTracker {
 public:
  explicit PrefixHitTracker(const ScenarioConfig& config) : block_size_(config.block_size) {}
  /// One step, in order (its chunks, then its finished and preempted requests); the step's own hits.
  PrefixHitCounts add(const StepRecord& step);
  const PrefixHitCounts& counts() const { return counts_; }

 private:
  struct BlockHistory {
    int64_t writer = -1;  // the request that last wrote a row into it
    int64_t owners = 0;   // requests that have written it, one after another
    std::set<int64_t> holders;  // live requests whose table holds it
  };
  void classify(const ChunkRecord& chunk, PrefixHitCounts& into) const;
  void drop(int64_t request);

  int64_t block_size_;
  PrefixHitCounts counts_;
  std::unordered_map<int32_t, BlockHistory> blocks_;
  std::unordered_map<int64_t, std::vector<int32_t>> held_;  // live request -> its table row
};

}  // namespace qsa::traces
