#include "qsa/traces/prefix_hits.hpp"

#include <algorithm>

namespace qsa::traces {

PrefixHitCounts& PrefixHitCounts::operator+=(const PrefixHitCounts& o) {
  hits += o.hits;
  hit_blocks += o.hit_blocks;
  hit_positions += o.hit_positions;
  on_finished += o.on_finished;
  blocks_on_finished += o.blocks_on_finished;
  deeper_than_one += o.deeper_than_one;
  after_eviction += o.after_eviction;
  shared_by_live += o.shared_by_live;
  for (const auto& [blocks, n] : o.depth) depth[blocks] += n;
  return *this;
}

void PrefixHitTracker::classify(const ChunkRecord& chunk, PrefixHitCounts& into) const {
  const auto shared = static_cast<size_t>(chunk.start / block_size_);
  bool other = false, finished = false, evicted = false, crowded = false;
  int64_t finished_blocks = 0;
  for (size_t i = 0; i < shared && i < chunk.blocks.size(); ++i) {
    const auto it = blocks_.find(chunk.blocks[i]);
    if (it == blocks_.end()) continue;  // its writer was cut away (a shrunk scenario)
    const BlockHistory& h = it->second;
    other |= h.writer != chunk.request;
    finished_blocks += h.holders.count(h.writer) == 0;
    finished |= h.holders.count(h.writer) == 0;
    evicted |= h.owners >= 2;
    crowded |= h.holders.size() - h.holders.count(chunk.request) >= 2;
  }
  if (!other) return;  // a recompute reading only what it wrote itself
  ++into.hits;
  into.hit_blocks += static_cast<int64_t>(shared);
  into.hit_positions += static_cast<int64_t>(shared) * block_size_;
  into.on_finished += finished;
  into.blocks_on_finished += finished_blocks;
  into.deeper_than_one += shared >= 2;
  into.after_eviction += evicted;
  into.shared_by_live += crowded;
  ++into.depth[static_cast<int64_t>(shared)];
}

void PrefixHitTracker::drop(int64_t request) {
  const auto it = held_.find(request);
  if (it == held_.end()) return;
  for (int32_t block : it->second) blocks_[block].holders.erase(request);
  held_.erase(it);
}

PrefixHitCounts PrefixHitTracker::add(const StepRecord& step) {
  PrefixHitCounts now;
  if (block_size_ <= 0) return now;
  for (const ChunkRecord& chunk : step.chunks)  // hits read the blocks as they were before the step
    if (chunk.start > 0 && !chunk.prefilled && held_.count(chunk.request) == 0) classify(chunk, now);
  counts_ += now;
  for (const ChunkRecord& chunk : step.chunks) {
    std::vector<int32_t>& row = held_[chunk.request];
    for (int32_t block : row) blocks_[block].holders.erase(chunk.request);
    row = chunk.blocks;
    for (int32_t block : row) blocks_[block].holders.insert(chunk.request);
    if (chunk.length <= 0) continue;
    const int64_t last = (chunk.start + chunk.length - 1) / block_size_;
    for (int64_t l = chunk.prefilled ? 0 : chunk.start / block_size_; l <= last; ++l) {
      if (l >= static_cast<int64_t>(chunk.blocks.size())) break;
      BlockHistory& h = blocks_[chunk.blocks[static_cast<size_t>(l)]];
      if (h.writer != chunk.request) ++h.owners;
      h.writer = chunk.request;
    }
  }
  for (int64_t id : step.finished) drop(id);
  for (int64_t id : step.preempted) drop(id);
  return now;
}

}  // namespace qsa::traces
