// One step's scheduling, as vLLM's v1 scheduler does it: running requests first, then admissions.
#include <algorithm>

#include "simulator_state.hpp"

namespace qsa::traces {

namespace {

ChunkRecord chunk_of(const SimRequest& r, int64_t length, bool prefilled = false) {
  ChunkRecord c;
  c.prefilled = prefilled;
  c.request = r.id;
  c.family = r.family;
  c.prompt_len = r.prompt_len;
  c.family_len = r.family_len;
  c.start = r.committed;
  c.length = length;
  c.blocks = r.blocks;
  c.ring_block = r.ring_block;
  return c;
}

}  // namespace

int64_t Simulator::State::grow_blocks(SimRequest& r, int64_t rows) {
  const int64_t b = config.block_size;
  const auto wanted = static_cast<size_t>((r.committed + rows - 1) / b + 1);
  while (r.blocks.size() < wanted && compressed_pool.free_count() > 0) {
    if (far_rng.chance(static_cast<uint64_t>(workload.far_block_per_mille), 1000)) {
      // An id near INT32_MAX, past the cache: its groups are skipped (SPEC 5), its slots b·S + g mod S
      // pass 2^31 once S > 1. Distinct for live requests (ids 2048 apart never run together) and
      // logical blocks, above kFarBlockFloor; never from or back to the pool.
      r.blocks.push_back(
          static_cast<int32_t>(kFarBlockTop - (r.id % 2048) * 4096 - static_cast<int64_t>(r.blocks.size() % 4096)));
      continue;
    }
    r.blocks.push_back(compressed_pool.allocate());
    forget_evicted(r.blocks.back());
  }
  return std::min(rows, static_cast<int64_t>(r.blocks.size()) * b - r.committed);
}

void Simulator::State::schedule(StepRecord& step, std::vector<Planned>& planned) {
  int64_t budget = config.max_num_batched_tokens;
  const int64_t drafts = config.num_speculative_tokens;

  // A zero-length chunk first in the batch (SPEC 1.1 allows one anywhere): the first running request
  // waits this step.
  const bool zero_first = !running.empty() &&
      zero_first_rng.chance(static_cast<uint64_t>(workload.zero_length_first_per_mille), 1000);
  // The step-edges knobs: the second running request waits too (shape_step_edges() puts its chunk
  // between two with rows), or every running request waits and nobody is admitted (M = 0).
  const bool zero_second = running.size() >= 3 && workload.zero_length_inside_per_mille > 0 &&
                           step_edge_rng.chance(static_cast<uint64_t>(workload.zero_length_inside_per_mille), 1000);
  const bool all_wait = !running.empty() && workload.all_padding_per_mille > 0 &&
                        step_edge_rng.chance(static_cast<uint64_t>(workload.all_padding_per_mille), 1000);
  if (all_wait) budget = 0;
  for (size_t i = 0; i < running.size(); ++i) {
    SimRequest& r = running[i];
    if (all_wait || (zero_first && i == 0) || (zero_second && i == 1)) {
      step.chunks.push_back(chunk_of(r, 0));
      planned.push_back({i, false, 0});
      continue;
    }
    if (budget <= 0) break;
    Planned plan{i, r.committed >= r.prefill_target, 0};
    int64_t rows;
    if (plan.decode) {
      int64_t k = drafts;
      if (drafts > 0 && draft_rng.chance(static_cast<uint64_t>(workload.fewer_drafts_per_mille), 1000))
        k = static_cast<int64_t>(draft_rng.below(static_cast<uint64_t>(drafts)));
      // No draft past the last output token, none beyond the budget.
      k = std::min({k, r.final_len - r.committed - 1, budget - 1});
      rows = grow_blocks(r, 1 + k);
      plan.drafts = rows - 1;
    } else {
      rows = grow_blocks(r, std::min(r.prefill_target - r.committed, budget));
    }
    if (rows <= 0) continue;  // no block for it this step
    step.chunks.push_back(chunk_of(r, rows));
    planned.push_back(plan);
    budget -= rows;
  }

  while (!waiting.empty() && budget > 0 && static_cast<int64_t>(running.size()) < config.max_num_seqs) {
    SimRequest r = waiting.front();
    // A pre-filled context, or a prefix hit: the first chunk starts past the positions either covers.
    const int64_t prefilled = std::min(workload.prefilled_context, r.prefill_target - 1);
    if (prefilled > 0)
      r.committed = prefilled;
    else if (r.family >= 0)  // a recompute too: its own blocks may still be cached (vLLM)
      take_prefix_hit(r);
    const int64_t rows = grow_blocks(r, std::min(r.prefill_target - r.committed, budget));
    if (rows <= 0) {  // the pool is dry: admit nobody else (vLLM stops at the first that does not fit)
      for (int32_t block : r.blocks)
        if (in_pool(block)) compressed_pool.release(block);
      break;
    }
    waiting.pop_front();
    r.ring_block = ring_pool.allocate();
    running.push_back(std::move(r));
    step.chunks.push_back(chunk_of(running.back(), rows, prefilled > 0));
    planned.push_back({running.size() - 1, false, 0});
    budget -= rows;
  }
}

}  // namespace qsa::traces
