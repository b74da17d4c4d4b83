#pragma once
// One side cache resident on the device between steps (docs/decisions.md "Cache journal"): the
// cache followed by poisoned slack, a device shadow of what the host holds, and pinned staging.
// Only what the host changed goes up (its journal's edits); after a step a kernel compares the
// whole cache and slack with the shadow on the device, and only the 256-byte chunks that differ
// come down, so the host's copy equals the device's everywhere (SPEC 7.5's evidence) at the cost
// of the rows the step wrote. Host code; private to the CUDA backend.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "device_buffer.hpp"
#include "qsa/status.hpp"
#include "qsa/step_types.hpp"

namespace qsa::cuda {

inline constexpr int64_t kMirrorChunkBytes = 256;  // what the device diff and the copy back move
inline constexpr int64_t kMirrorPairBytes = 512;   // a warp's share: the region is a multiple of it

class CacheMirror {
 public:
  /// Brings the device copy up to `cache` on `stream`: the journal's host edits when the device
  /// matches the journal's token, else the whole cache; `slack` poisoned bytes (at least) follow it.
  [[nodiscard]] Status upload(const CacheBuffer& cache, size_t slack, cudaStream_t stream, const char* what,
                              Error* error);
  /// After the step's kernels: compares the cache and slack with the shadow on the device and
  /// queues the copy of the number of changed chunks into pinned memory. Nothing synchronizes.
  [[nodiscard]] Status find_changes(cudaStream_t stream, Error* error);
  /// After a synchronization of `stream`: queues the copies of the changed chunks (or of the whole
  /// region, when more changed than the staging holds). Nothing synchronizes.
  [[nodiscard]] Status queue_changes(cudaStream_t stream, Error* error);
  /// After another synchronization: writes the changed bytes into `cache`, reports them
  /// (CacheJournal::kernel_writes), stamps the journal; kInternalError naming `name` when a byte of
  /// the slack changed (a write past the cache).
  [[nodiscard]] Status collect(CacheBuffer* cache, const char* name, Error* error);

  void* device() const { return cache_.as<void>(); }

 private:
  DeviceBuffer cache_;   // [region_]: the cache, then poison
  DeviceBuffer shadow_;  // [region_]: what the host holds, then poison
  DeviceBuffer changed_;  // int32 count, then int64 chunk indices [capacity_]
  DeviceBuffer staging_;  // the changed chunks [capacity_ * kMirrorChunkBytes]
  DeviceBuffer edits_;    // host edits: int64 (offset, source, bytes) triples, then their bytes
  PinnedBuffer host_edits_;
  PinnedBuffer host_changed_;  // int32 count (padded to 8), then indices, then chunks
  size_t cache_bytes_ = 0;
  size_t region_ = 0;
  int64_t capacity_ = 1024;  // chunks the staging holds; doubled past the count that overflowed it
  int32_t count_ = 0;
  std::vector<std::pair<int64_t, size_t>> order_;  // the changed chunks in cache order (kept: no allocation)
  bool whole_ = false;       // the last queue_changes() copied the whole region
  uint64_t token_ = 0;       // the journal token the device copy matches; 0 while a call is under way
};

/// Kernels of the mirror (cache_mirror_launch.cu), on `stream`, not synchronizing.
Status launch_scatter_edits(uint8_t* cache, uint8_t* shadow, const int64_t* entries, int64_t count,
                            const uint8_t* bytes, cudaStream_t stream, Error* error);
Status launch_diff_chunks(const void* cache, void* shadow, int64_t pairs, int32_t* count, int64_t* chunks,
                          void* staging, int64_t capacity, cudaStream_t stream, Error* error);

}  // namespace qsa::cuda
