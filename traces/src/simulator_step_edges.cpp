// The step-edges knobs (workloads.hpp): step shapes SPEC 1.1 and 5 allow that vLLM's scheduler does
// not make, applied to a scheduled, verified and padded step. Each changes only what the record
// names (order, padding, one step's block-table entries), never the simulated requests, so the
// next step is as the scheduler planned it.
#include <algorithm>

#include "simulator_state.hpp"

namespace qsa::traces {

namespace {

bool has_rows(const ChunkRecord& c) { return c.length > 0; }

}  // namespace

// The block of the chunk's last group-closing row goes missing for this step: its column dropped
// from the row when no other row of the table (`others_width` columns) reaches it, so the table has
// no column for it (L >= W), else -1 in its column. The group is skipped (SPEC 5) and ScenarioState
// exempts it from the oracle.
void Simulator::State::drop_compressed_block(ChunkRecord& chunk, size_t others_width) {
  const int64_t c = config.compress_ratio;
  const int64_t last = chunk.start + chunk.length;  // past the last row
  if (last / c == chunk.start / c) return;          // no group closes in this chunk
  const auto logical = static_cast<size_t>((last / c - 1) / config.storage_block_size());
  if (logical >= chunk.blocks.size()) return;
  uncache(chunk.blocks[logical]);  // its group stays unwritten: no hit may read the block
  if (others_width <= logical)
    chunk.blocks.resize(logical);
  else
    chunk.blocks[logical] = -1;
}

void Simulator::State::shape_step_edges(StepRecord& step) {
  auto& chunks = step.chunks;
  const int64_t threshold = step.reorder_batch_threshold;
  // A zero-length chunk between two with rows (SPEC 1.1: legal anywhere).
  if (workload.zero_length_inside_per_mille > 0 && std::count_if(chunks.begin(), chunks.end(), has_rows) >= 2) {
    const auto zero = std::find_if_not(chunks.begin(), chunks.end(), has_rows);
    if (zero != chunks.end()) {
      const ChunkRecord moved = *zero;
      chunks.erase(zero);
      chunks.insert(std::find_if(chunks.begin(), chunks.end(), has_rows) + 1, moved);
    }
  }
  // Every request waits: the step is CUDA-graph padding only (M = 0 < N).
  if (workload.all_padding_per_mille > 0 && std::none_of(chunks.begin(), chunks.end(), has_rows))
    step.padding_tokens = std::max<int64_t>(step.padding_tokens, 4);
  // A prefill before the decodes (the batch split's rule 2 or 4 then sees it first).
  if (workload.prefill_first_per_mille > 0 &&
      step_edge_rng.chance(static_cast<uint64_t>(workload.prefill_first_per_mille), 1000)) {
    const auto prefill =
        std::find_if(chunks.begin(), chunks.end(), [&](const ChunkRecord& c) { return c.length > threshold; });
    if (prefill != chunks.end()) std::rotate(chunks.begin(), prefill, prefill + 1);
  }
  if (workload.missing_compressed_per_mille > 0 && !chunks.empty() &&
      step_edge_rng.chance(static_cast<uint64_t>(workload.missing_compressed_per_mille), 1000)) {
    // The widest chunk, so that a dropped column can be past every other row's width.
    const auto widest = std::max_element(chunks.begin(), chunks.end(), [](const ChunkRecord& a, const ChunkRecord& b) {
      return a.blocks.size() < b.blocks.size();
    });
    size_t others_width = 0;
    for (auto it = chunks.begin(); it != chunks.end(); ++it)
      if (it != widest) others_width = std::max(others_width, it->blocks.size());
    drop_compressed_block(*widest, others_width);
  }
  // A request that ends (or is preempted) after this step loses its ring block for it: its commit
  // is skipped and the ring's rows of it are never read again.
  if (workload.missing_ring_per_mille > 0)
    for (ChunkRecord& chunk : chunks) {
      const bool last_step = std::count(step.finished.begin(), step.finished.end(), chunk.request) > 0 ||
                             std::count(step.preempted.begin(), step.preempted.end(), chunk.request) > 0;
      if (!last_step || !has_rows(chunk) ||
          !step_edge_rng.chance(static_cast<uint64_t>(workload.missing_ring_per_mille), 1000))
        continue;
      chunk.ring_block = step_edge_rng.chance(1, 2) ? -1 : static_cast<int32_t>(kFarBlockTop - chunk.request % 2048);
    }
}

}  // namespace qsa::traces
