#pragma once
// Where a plugin's buffers live: host memory, or a CUDA device reached through the driver API
// (libcuda.so.1, opened at run time, so qsacheck builds and runs host plugins without CUDA). The
// CUDA side uses the device's primary context and one stream, the `CUstream` a plugin is given.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "qsa/status.hpp"
#include "qsacheck/plugin.h"

namespace qsa::backends {

class PluginMemory {
 public:
  virtual ~PluginMemory() = default;
  virtual DLDevice device() const = 0;
  virtual void* stream() const = 0;  // CUstream, or nullptr on the host
  /// Each returns kOk or kDeviceError with *error naming the driver call.
  virtual Status allocate(size_t bytes, void** pointer, Error* error) = 0;
  virtual void release(void* pointer) = 0;
  virtual Status upload(void* destination, const void* source, size_t bytes, Error* error) = 0;
  virtual Status download(void* destination, const void* source, size_t bytes, Error* error) = 0;
  virtual Status fill(void* destination, uint8_t value, size_t bytes, Error* error) = 0;
  /// Waits for the plugin's work on the stream.
  virtual Status synchronize(Error* error) = 0;
};

std::unique_ptr<PluginMemory> make_host_memory();
/// nullptr with *error when the driver, the device or its primary context is unusable.
std::unique_ptr<PluginMemory> make_cuda_memory(int device_ordinal, Error* error);

/// A buffer in plugin memory with the shape and strides its DLTensor points at.
class PluginBuffer {
 public:
  PluginBuffer() = default;
  PluginBuffer(const PluginBuffer&) = delete;
  PluginBuffer& operator=(const PluginBuffer&) = delete;
  ~PluginBuffer();

  /// Room for `bytes` (at least 1), the memory kept from an earlier call when it is large enough
  /// (same PluginMemory), content unspecified.
  Status reserve(PluginMemory& memory, size_t bytes, Error* error);
  /// reserve(), then the poison byte 0xA5 over `bytes` (an output).
  Status allocate(PluginMemory& memory, size_t bytes, Error* error);
  /// reserve(), then an upload of `bytes` from `source` (an input).
  Status allocate_from(PluginMemory& memory, const void* source, size_t bytes, Error* error);
  Status download_to(void* destination, size_t bytes, Error* error) const;

  /// The tensor view: dtype (code, bits), shape, and strides in elements (empty: dense).
  DLTensor tensor(uint8_t code, uint8_t bits, std::vector<int64_t> shape, std::vector<int64_t> strides = {});

  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }

 private:
  PluginMemory* memory_ = nullptr;
  void* data_ = nullptr;
  size_t bytes_ = 0;     // what the last call asked for
  size_t capacity_ = 0;  // what data_ holds
  std::vector<int64_t> shape_;
  std::vector<int64_t> strides_;
};

}  // namespace qsa::backends
