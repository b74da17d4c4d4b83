#pragma once
// A pool of cache block ids with reference counts, as vLLM's block pool hands them out: a block
// is free, or held by one request, or shared read-only by several (prefix caching). The free
// list is shuffled with the project's Rng and freed blocks return at a random place, so that
// after some churn the ids a request holds look random (kernels must not assume contiguity).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "qsa/traces/rng.hpp"

namespace qsa::traces {

class BlockPool {
 public:
  /// Ids 0 .. num_blocks - 1, all free, in an order drawn from `rng`.
  BlockPool(int32_t num_blocks, Rng rng);

  int64_t num_blocks() const { return static_cast<int64_t>(refcount_.size()); }
  int64_t free_count() const { return static_cast<int64_t>(free_.size()); }

  /// A free block, now held once. Precondition: free_count() > 0 (throws std::logic_error).
  int32_t allocate();

  /// One more holder of an allocated block (a prefix-cache hit). Throws std::logic_error if free.
  void share(int32_t block);

  /// One holder fewer; the block returns to the free list, at a random place, when none is left.
  void release(int32_t block);

  int32_t refcount(int32_t block) const { return refcount_[static_cast<size_t>(block)]; }

 private:
  std::vector<int32_t> free_;      // [free_count()] ids with refcount 0; allocate() takes the back
  std::vector<int32_t> refcount_;  // [num_blocks] holders per id
  Rng rng_;
};

}  // namespace qsa::traces
