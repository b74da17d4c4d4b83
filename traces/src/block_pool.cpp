#include "qsa/traces/block_pool.hpp"

#include <stdexcept>
#include <string>
#include <utility>

namespace qsa::traces {

BlockPool::BlockPool(int32_t num_blocks, Rng rng)
    : refcount_(static_cast<size_t>(num_blocks), 0), release_order_(static_cast<size_t>(num_blocks), kNotCached), rng_(rng) {
  for (int32_t b = 0; b < num_blocks; ++b) free_.push_back(b);
  // Fisher-Yates with our own generator (std::shuffle's use of the engine is not portable).
  for (size_t i = free_.size(); i > 1; --i) std::swap(free_[i - 1], free_[rng_.below(i)]);
}

int32_t BlockPool::allocate() {
  int32_t block = 0;
  if (!free_.empty()) {
    block = free_.back();
    free_.pop_back();
  } else if (!evictable_.empty()) {  // evicted: its content is no longer cached
    block = evictable_.begin()->second;
    evictable_.erase(evictable_.begin());
    release_order_[static_cast<size_t>(block)] = kNotCached;
  } else {
    throw std::logic_error("block pool: allocate() with no free block");
  }
  refcount_[static_cast<size_t>(block)] = 1;
  return block;
}

void BlockPool::share(int32_t block) {
  int32_t& count = refcount_.at(static_cast<size_t>(block));
  uint64_t& order = release_order_[static_cast<size_t>(block)];
  if (count == 0 && order == kNotCached)
    throw std::logic_error("block pool: share() of free block " + std::to_string(block));
  if (count == 0) {  // a hit on an evictable block: held again, off the queue
    evictable_.erase({order, block});
    order = kHeld;
  }
  ++count;
}

void BlockPool::set_cached(int32_t block, bool cached) {
  uint64_t& order = release_order_.at(static_cast<size_t>(block));
  if (refcount_[static_cast<size_t>(block)] > 0) {
    order = cached ? kHeld : kNotCached;
    return;
  }
  if (cached || order == kNotCached) throw std::logic_error("block pool: set_cached() of a free block");
  evictable_.erase({order, block});  // uncached while free: an ordinary free block
  order = kNotCached;
  free_.push_back(block);
  std::swap(free_.back(), free_[rng_.below(free_.size())]);
}

void BlockPool::release(int32_t block) {
  int32_t& count = refcount_.at(static_cast<size_t>(block));
  if (count == 0) throw std::logic_error("block pool: release() of free block " + std::to_string(block));
  if (--count > 0) return;
  uint64_t& order = release_order_[static_cast<size_t>(block)];
  if (order != kNotCached) {  // kept by the prefix cache: evictable, newest last
    order = releases_++;
    evictable_.insert({order, block});
    return;
  }
  free_.push_back(block);
  std::swap(free_.back(), free_[rng_.below(free_.size())]);
}

}  // namespace qsa::traces
