// What happens after a step's chunks are chosen: verification, negative common slots, requests
// finishing, preemption.
#include <algorithm>
#include <set>

#include "simulator_state.hpp"

namespace qsa::traces {

void Simulator::State::verify(StepRecord& step, const std::vector<Planned>& planned) {
  for (size_t i = 0; i < planned.size(); ++i) {
    ChunkRecord& chunk = step.chunks[i];
    SimRequest& r = running[planned[i].running_index];
    if (planned[i].decode) {
      // The first row is the last sampled token: always accepted. Drafts are accepted in order
      // until the first rejection; the rest roll back.
      int64_t a = 0;
      while (a < planned[i].drafts && draft_rng.chance(static_cast<uint64_t>(workload.draft_accept_per_mille), 1000))
        ++a;
      chunk.accepted = 1 + a;
    } else {
      chunk.accepted = chunk.length;  // prefill chunks are accepted whole
    }
    r.committed += chunk.accepted;
    r.started = true;
    cache_full_blocks(r);
  }
}

void Simulator::State::mark_negative_common_slots(ChunkRecord& chunk) {
  // Only generated positions past the family's content: those groups must be written, a prefix hit
  // reads them.
  const int64_t first = std::max({chunk.start, chunk.prompt_len, chunk.family < 0 ? 0 : chunk.family_len});
  const int64_t end = chunk.start + chunk.length;
  if (first >= end) return;
  if (!negative_rng.chance(static_cast<uint64_t>(workload.negative_slot_per_mille), 1000)) return;
  std::vector<int64_t> closing;  // rows whose position closes a group: the ones a slot matters for
  for (int64_t p = first; p < end; ++p)
    if ((p + 1) % config.compress_ratio == 0) closing.push_back(p - chunk.start);
  if (!closing.empty() && negative_rng.chance(1, 2)) {
    chunk.negative_common_slots = closing;
    return;
  }
  std::set<int64_t> rows;
  const int64_t count = negative_rng.range(1, std::min<int64_t>(3, end - first));
  while (static_cast<int64_t>(rows.size()) < count) rows.insert(negative_rng.range(first, end - 1) - chunk.start);
  chunk.negative_common_slots.assign(rows.begin(), rows.end());
}

void Simulator::State::release(SimRequest& r) {
  for (int32_t block : r.blocks)
    if (in_pool(block)) compressed_pool.release(block);
  r.blocks.clear();
  if (r.ring_block >= 0) ring_pool.release(r.ring_block);
  r.ring_block = -1;
}

void Simulator::State::retire_finished(StepRecord& step) {
  for (size_t i = 0; i < running.size();) {
    if (running[i].committed >= running[i].final_len) {
      step.finished.push_back(running[i].id);
      release(running[i]);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
}

int64_t Simulator::State::next_step_block_demand() const {
  // Blocks the running requests may need next step: a decode with every draft, or one prefill row.
  int64_t demand = 0;
  for (const SimRequest& r : running) {
    const int64_t last = r.committed >= r.prefill_target
                             ? std::min(r.committed + config.num_speculative_tokens, r.final_len - 1)
                             : r.committed;
    demand += std::max<int64_t>(0, last / config.block_size + 1 - static_cast<int64_t>(r.blocks.size()));
  }
  return demand;
}

void Simulator::State::preempt_at(StepRecord& step, size_t index) {
  SimRequest r = std::move(running[index]);
  running.erase(running.begin() + static_cast<std::ptrdiff_t>(index));
  release(r);
  // Recomputed from position 0 later: everything committed so far (at least the prompt) is
  // prefilled again on new blocks.
  r.prefill_target = std::max(r.prompt_len, r.committed);
  r.committed = 0;
  r.cached_blocks = 0;
  step.preempted.push_back(r.id);
  waiting.push_front(std::move(r));
}

void Simulator::State::preempt(StepRecord& step) {
  // vLLM preempts the newest running request when the pool cannot hold the next step.
  while (!running.empty() && next_step_block_demand() > compressed_pool.free_count())
    preempt_at(step, running.size() - 1);
  if (!running.empty() && preempt_rng.chance(static_cast<uint64_t>(workload.preempt_per_mille), 1000)) {
    const size_t victim = preempt_rng.chance(1, 2) ? running.size() - 1 : preempt_rng.below(running.size());
    preempt_at(step, victim);
  }
}

}  // namespace qsa::traces
