#pragma once
// The shared memory of a worker (docs/worker-protocol.md, "Shared memory"): one memfd that only
// grows (sealed against shrinking, so a worker cannot take pages from under this side's mapping),
// mapped here once and mapped again only when a call needs more room; the worker inherits
// the descriptor as fd 5 and maps it again when a request's shm_bytes exceeds its mapping.

#include <cstddef>
#include <cstdint>

#include "qsa/status.hpp"

namespace qsa::backends {

class SharedRegion {
 public:
  SharedRegion() = default;
  SharedRegion(const SharedRegion&) = delete;
  SharedRegion& operator=(const SharedRegion&) = delete;
  ~SharedRegion();

  /// Creates the memfd with `bytes`, sealed F_SEAL_SHRINK (kInternalError naming the call on failure).
  Status create(size_t bytes, Error* error);
  /// Grows to at least `bytes` (by half again at least, so growth is rare); content is kept.
  Status reserve(size_t bytes, Error* error);

  int fd() const { return fd_; }
  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  int fd_ = -1;
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace qsa::backends
