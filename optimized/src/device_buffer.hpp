#pragma once
// Grow-only allocations: reused across calls, reallocated only when a call needs more bytes than
// they hold. DeviceBuffer (cudaMalloc) and PinnedBuffer (cudaMallocHost: page-locked host memory,
// the staging of the copies on the hot path, which then run asynchronously on the backend's stream
// instead of through the driver's pageable bounce buffers). Host code; private to the CUDA backend.

#include <cuda_runtime_api.h>

#include <cstddef>

#include "qsa/cuda/cuda_check.hpp"

namespace qsa::cuda {

inline cudaError_t allocate_device(void** p, size_t bytes) { return cudaMalloc(p, bytes); }
inline cudaError_t release_device(void* p) { return cudaFree(p); }
inline cudaError_t allocate_pinned(void** p, size_t bytes) { return cudaMallocHost(p, bytes); }
inline cudaError_t release_pinned(void* p) { return cudaFreeHost(p); }

template <cudaError_t (*Allocate)(void**, size_t), cudaError_t (*Release)(void*)>
class GrowOnlyBuffer {
 public:
  GrowOnlyBuffer() = default;
  ~GrowOnlyBuffer() { Release(data_); }
  GrowOnlyBuffer(const GrowOnlyBuffer&) = delete;
  GrowOnlyBuffer& operator=(const GrowOnlyBuffer&) = delete;

  /// Makes room for `bytes` (at least 1); keeps the allocation when it is large enough, and grows
  /// by at least half again: cudaFree and cudaFreeHost wait for the whole device, every job's
  /// stream included.
  [[nodiscard]] Status reserve(size_t bytes, const char* what, Error* error) {
    if (bytes <= capacity_ && data_ != nullptr) return Status::kOk;
    const size_t grown = capacity_ + capacity_ / 2;
    const size_t size = bytes > grown ? (bytes > 0 ? bytes : 1) : grown;
    Release(data_);
    data_ = nullptr;
    capacity_ = 0;
    const cudaError_t code = Allocate(&data_, size);
    if (code != cudaSuccess) return device_error(code, what, error);
    capacity_ = size;
    return Status::kOk;
  }

  template <typename T>
  T* as() const {
    return static_cast<T*>(data_);
  }

 private:
  void* data_ = nullptr;
  size_t capacity_ = 0;
};

using PinnedBuffer = GrowOnlyBuffer<allocate_pinned, release_pinned>;

class DeviceBuffer : public GrowOnlyBuffer<allocate_device, release_device> {
 public:
  /// reserve() then an asynchronous copy of `bytes` from pageable host memory.
  [[nodiscard]] Status upload(const void* host, size_t bytes, cudaStream_t stream, const char* what, Error* error) {
    if (Status s = reserve(bytes, what, error); s != Status::kOk) return s;
    if (bytes > 0) QSA_CUDA_TRY(cudaMemcpyAsync(as<void>(), host, bytes, cudaMemcpyHostToDevice, stream), error);
    return Status::kOk;
  }
};

}  // namespace qsa::cuda
