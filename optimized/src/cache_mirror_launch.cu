// The kernels of CacheMirror (cache_mirror.hpp): the host's edits written into the cache and its
// shadow, and the whole-region comparison that gathers the chunks a step changed.

#include <cuda_runtime.h>

#include "cache_mirror.hpp"

namespace qsa::cuda {
namespace {

// One block per edit: entries are (offset, source, bytes) triples into `bytes`.
__global__ void scatter_edits_kernel(uint8_t* cache, uint8_t* shadow, const int64_t* entries, int64_t count,
                                     const uint8_t* bytes) {
  for (int64_t e = blockIdx.x; e < count; e += gridDim.x) {
    const int64_t offset = entries[3 * e], source = entries[3 * e + 1], n = entries[3 * e + 2];
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
      const uint8_t v = bytes[source + i];
      cache[offset + i] = v;
      shadow[offset + i] = v;
    }
  }
}

// A warp compares 512 bytes (two 256-byte chunks, 16 lanes each) of the cache with the shadow; a
// half-warp whose chunk differs takes the next staging index, copies the chunk there and into the
// shadow (only when it fits: past `capacity` the host copies the whole region instead).
__global__ void diff_chunks_kernel(const uint4* cache, uint4* shadow, int64_t pairs, int32_t* count, int64_t* chunks,
                                   uint4* staging, int64_t capacity) {
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const int64_t warps_per_block = blockDim.x / 32;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * warps_per_block;
  for (int64_t pair = static_cast<int64_t>(blockIdx.x) * warps_per_block + threadIdx.x / 32; pair < pairs;
       pair += stride) {
    const int64_t at = pair * 32 + lane;
    const uint4 c = cache[at];
    const uint4 s = shadow[at];
    const bool differ = c.x != s.x || c.y != s.y || c.z != s.z || c.w != s.w;
    const unsigned ballot = __ballot_sync(0xffffffffu, differ);
    const unsigned half = lane < 16 ? (ballot & 0xffffu) : (ballot >> 16);
    int32_t index = 0;
    if (half != 0 && (lane & 15) == 0) index = atomicAdd(count, 1);
    index = __shfl_sync(0xffffffffu, index, lane & 16);
    if (half != 0 && index < capacity) {
      if ((lane & 15) == 0) chunks[index] = pair * 2 + (lane >> 4);
      staging[static_cast<int64_t>(index) * 16 + (lane & 15)] = c;
      shadow[at] = c;
    }
  }
}

}  // namespace

Status launch_scatter_edits(uint8_t* cache, uint8_t* shadow, const int64_t* entries, int64_t count,
                            const uint8_t* bytes, cudaStream_t stream, Error* error) {
  if (count == 0) return Status::kOk;
  const auto blocks = static_cast<unsigned>(count < 4096 ? count : 4096);
  scatter_edits_kernel<<<blocks, 256, 0, stream>>>(cache, shadow, entries, count, bytes);
  QSA_CUDA_TRY(cudaGetLastError(), error);
  return Status::kOk;
}

Status launch_diff_chunks(const void* cache, void* shadow, int64_t pairs, int32_t* count, int64_t* chunks,
                          void* staging, int64_t capacity, cudaStream_t stream, Error* error) {
  if (pairs == 0) return Status::kOk;
  const int64_t blocks = (pairs + 7) / 8;  // 8 warps of 256 threads
  diff_chunks_kernel<<<static_cast<unsigned>(blocks < 2048 ? blocks : 2048), 256, 0, stream>>>(
      static_cast<const uint4*>(cache), static_cast<uint4*>(shadow), pairs, count, chunks,
      static_cast<uint4*>(staging), capacity);
  QSA_CUDA_TRY(cudaGetLastError(), error);
  return Status::kOk;
}

}  // namespace qsa::cuda
