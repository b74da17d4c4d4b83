#pragma once
// A grow-only device allocation: reused across calls, reallocated (cudaMalloc) only when a call
// needs more bytes than it holds. Host code; private to the CUDA backend.

#include <cuda_runtime_api.h>

#include <cstddef>

#include "qsa/cuda/cuda_check.hpp"

namespace qsa::cuda {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer() { cudaFree(data_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  /// Makes room for `bytes` (at least 1); keeps the allocation when it is large enough, and grows
  /// by at least half again: cudaFree waits for the whole device, every job's stream included.
  [[nodiscard]] Status reserve(size_t bytes, const char* what, Error* error) {
    if (bytes <= capacity_ && data_ != nullptr) return Status::kOk;
    const size_t grown = capacity_ + capacity_ / 2;
    cudaFree(data_);
    data_ = nullptr;
    capacity_ = 0;
    const size_t size = bytes > grown ? (bytes > 0 ? bytes : 1) : grown;
    const cudaError_t code = cudaMalloc(&data_, size);
    if (code != cudaSuccess) return device_error(code, what, error);
    capacity_ = size;
    return Status::kOk;
  }

  /// reserve() then an asynchronous copy of `bytes` from pageable host memory.
  [[nodiscard]] Status upload(const void* host, size_t bytes, cudaStream_t stream, const char* what, Error* error) {
    if (Status s = reserve(bytes, what, error); s != Status::kOk) return s;
    if (bytes > 0) QSA_CUDA_TRY(cudaMemcpyAsync(data_, host, bytes, cudaMemcpyHostToDevice, stream), error);
    return Status::kOk;
  }

  template <typename T>
  T* as() const {
    return static_cast<T*>(data_);
  }
  size_t capacity() const { return capacity_; }

 private:
  void* data_ = nullptr;
  size_t capacity_ = 0;
};

/// A grow-only page-locked host allocation (cudaMallocHost): the staging of the copies on the
/// hot path, which then run asynchronously on the backend's stream instead of through the
/// driver's pageable bounce buffers. Grows by at least half again, so growth is rare.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  ~PinnedBuffer() { cudaFreeHost(data_); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  [[nodiscard]] Status reserve(size_t bytes, const char* what, Error* error) {
    if (bytes <= capacity_ && data_ != nullptr) return Status::kOk;
    const size_t grown = capacity_ + capacity_ / 2;
    const size_t size = bytes > grown ? (bytes > 0 ? bytes : 1) : grown;
    cudaFreeHost(data_);
    data_ = nullptr;
    capacity_ = 0;
    const cudaError_t code = cudaMallocHost(&data_, size);
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

}  // namespace qsa::cuda
