#pragma once
// A pool of cache block ids with reference counts, as vLLM's block pool hands them out: a block
// is free, or held by one request, or shared read-only by several (prefix caching). The free
// list is shuffled with the project's Rng and freed blocks return at a random place, so that
// after some churn the ids a request holds look random (kernels must not assume contiguity).
// A block the prefix cache keeps (set_cached) is, once free, evictable instead: it waits in a
// queue ordered by release, is handed out again only when no uncached block is free (the least
// recently released first, vLLM's free block queue; docs/decisions.md "Prefix cache"), and a hit
// on it (share) takes it back off the queue.

#include <cstddef>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "qsa/traces/rng.hpp"

namespace qsa::traces {

class BlockPool {
 public:
  /// Ids 0 .. num_blocks - 1, all free, in an order drawn from `rng`.
  BlockPool(int32_t num_blocks, Rng rng);

  int64_t num_blocks() const { return static_cast<int64_t>(refcount_.size()); }
  /// Blocks allocate() can hand out: the free ones and the evictable cached ones.
  int64_t free_count() const { return static_cast<int64_t>(free_.size() + evictable_.size()); }
  int64_t evictable_count() const { return static_cast<int64_t>(evictable_.size()); }

  /// A free block, now held once: an uncached one while any is free, else the least recently
  /// released cached one (no longer cached). Precondition: free_count() > 0 (throws std::logic_error).
  int32_t allocate();

  /// One more holder of a block (a prefix-cache hit): an allocated one, or an evictable cached one
  /// (then held once). Throws std::logic_error for an uncached free block.
  void share(int32_t block);

  /// Whether the block, once free, waits as evictable (the prefix cache holds its content). A held
  /// block may be marked either way; a free evictable one only uncached (it joins the free list).
  void set_cached(int32_t block, bool cached);
  bool cached(int32_t block) const { return release_order_[static_cast<size_t>(block)] != kNotCached; }

  /// One holder fewer; the block returns to the free list, at a random place, when none is left.
  void release(int32_t block);

  int32_t refcount(int32_t block) const { return refcount_[static_cast<size_t>(block)]; }

 private:
  std::vector<int32_t> free_;      // [free_count()] ids with refcount 0; allocate() takes the back
  std::vector<int32_t> refcount_;  // [num_blocks] holders per id
  static constexpr uint64_t kNotCached = ~uint64_t{0};
  static constexpr uint64_t kHeld = kNotCached - 1;
  std::vector<uint64_t> release_order_;             // [num_blocks] kNotCached, kHeld, or the release's number
  std::set<std::pair<uint64_t, int32_t>> evictable_;  // free cached blocks by release number, oldest first
  uint64_t releases_ = 0;
  Rng rng_;
};

}  // namespace qsa::traces
