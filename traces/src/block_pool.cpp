#include "qsa/traces/block_pool.hpp"

#include <stdexcept>
#include <string>
#include <utility>

namespace qsa::traces {

BlockPool::BlockPool(int32_t num_blocks, Rng rng) : refcount_(static_cast<size_t>(num_blocks), 0), rng_(rng) {
  for (int32_t b = 0; b < num_blocks; ++b) free_.push_back(b);
  // Fisher-Yates with our own generator (std::shuffle's use of the engine is not portable).
  for (size_t i = free_.size(); i > 1; --i) std::swap(free_[i - 1], free_[rng_.below(i)]);
}

int32_t BlockPool::allocate() {
  if (free_.empty()) throw std::logic_error("block pool: allocate() with no free block");
  const int32_t block = free_.back();
  free_.pop_back();
  refcount_[static_cast<size_t>(block)] = 1;
  return block;
}

void BlockPool::share(int32_t block) {
  int32_t& count = refcount_.at(static_cast<size_t>(block));
  if (count == 0) throw std::logic_error("block pool: share() of free block " + std::to_string(block));
  ++count;
}

void BlockPool::release(int32_t block) {
  int32_t& count = refcount_.at(static_cast<size_t>(block));
  if (count == 0) throw std::logic_error("block pool: release() of free block " + std::to_string(block));
  if (--count > 0) return;
  free_.push_back(block);
  std::swap(free_.back(), free_[rng_.below(free_.size())]);
}

}  // namespace qsa::traces
