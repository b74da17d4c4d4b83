// vLLM's prefix cache (v1 KV cache manager): a full block of a request's family content is known by
// the chain of tokens up to its end; once committed it is hittable by any later request whose
// chain matches, stays cached after its request finishes or is preempted, and goes only when the
// pool hands the block out again (LRU, BlockPool). docs/decisions.md "Prefix cache" says how the
// chain is read from a log and from prompt families, and why every cached row is what a hit reads.
#include <algorithm>

#include "simulator_state.hpp"

namespace qsa::traces {

void Simulator::State::chain_family_blocks(SimRequest& r) const {
  r.chain.clear();
  if (r.family < 0) return;
  const int64_t b = config.block_size;
  const int64_t content = std::max(r.prompt_len, r.family_len);
  if (r.logged < 0) {
    // A prompt family: position p of every member holds (family, p), so the block index is the chain.
    for (int64_t i = 0; (i + 1) * b <= content; ++i)
      r.chain.push_back(hash_words(0x66616d696c79ull, static_cast<uint64_t>(r.family), static_cast<uint64_t>(i)));
    return;
  }
  // A replayed log: the chain of the hash blocks up to the block's last position (hashes of the
  // prompt, then those of the later turn that holds this one's output).
  const RequestSchedule& log = *workload.schedule;
  const std::vector<int64_t>& hashes = log.arrivals[static_cast<size_t>(r.logged)].content_hashes;
  const int64_t h = log.hash_block_positions;
  const int64_t covered = std::min(content, static_cast<int64_t>(hashes.size()) * h);
  uint64_t chain = 0x6c6f67ull;
  int64_t chained = 0;  // hash blocks folded into `chain`
  for (int64_t i = 0; (i + 1) * b <= covered; ++i) {
    const int64_t needed = ((i + 1) * b - 1) / h + 1;
    for (; chained < needed; ++chained) chain = hash_words(chain, static_cast<uint64_t>(hashes[static_cast<size_t>(chained)]));
    r.chain.push_back(hash_words(chain, static_cast<uint64_t>(i)));
  }
}

void Simulator::State::take_prefix_hit(SimRequest& r) {
  // The longest run of leading cached blocks, always leaving the last prompt token to compute
  // (vLLM recomputes it for its logits); a hit on an evictable block takes it off the queue.
  const int64_t b = config.block_size;
  const auto most = static_cast<size_t>(std::max<int64_t>(0, r.prompt_len - 1) / b);
  r.blocks.clear();
  for (size_t i = 0; i < std::min(most, r.chain.size()); ++i) {
    const auto it = prefix_cache.find(r.chain[i]);
    if (it == prefix_cache.end()) break;
    compressed_pool.share(it->second);
    r.blocks.push_back(it->second);
  }
  r.committed = static_cast<int64_t>(r.blocks.size()) * b;
  r.cached_blocks = r.blocks.size();
}

void Simulator::State::cache_full_blocks(SimRequest& r) {
  const int64_t b = config.block_size;
  const size_t full = std::min(r.chain.size(), static_cast<size_t>(r.committed / b));
  for (; r.cached_blocks < full; ++r.cached_blocks) {
    const int32_t block = r.blocks[r.cached_blocks];
    // A far block is past the cache (no rows); a chain computed twice keeps the first block (vLLM).
    if (!in_pool(block) || compressed_pool.cached(block)) continue;
    if (!prefix_cache.emplace(r.chain[r.cached_blocks], block).second) continue;
    cached_key[block] = r.chain[r.cached_blocks];
    compressed_pool.set_cached(block, true);
  }
}

void Simulator::State::forget_evicted(int32_t block) {
  if (forget(block)) ++evictions;
}

bool Simulator::State::forget(int32_t block) {
  const auto it = cached_key.find(block);
  if (it == cached_key.end()) return false;
  prefix_cache.erase(it->second);
  cached_key.erase(it);
  return true;
}

void Simulator::State::uncache(int32_t block) {
  if (!in_pool(block) || !forget(block)) return;
  compressed_pool.set_cached(block, false);
}

}  // namespace qsa::traces
