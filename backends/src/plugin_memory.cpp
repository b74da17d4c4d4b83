#include "plugin_memory.hpp"

#include <cstdlib>
#include <cstring>

namespace qsa::backends {
namespace {

class HostMemory final : public PluginMemory {
 public:
  DLDevice device() const override { return DLDevice{kDLCPU, 0}; }
  void* stream() const override { return nullptr; }
  Status allocate(size_t bytes, void** pointer, Error* error) override {
    *pointer = std::malloc(bytes);
    if (*pointer != nullptr) return Status::kOk;
    *error = Error{"plugin", -1, "out-of-memory", "cannot allocate " + std::to_string(bytes) + " host bytes"};
    return Status::kInternalError;
  }
  void release(void* pointer) override { std::free(pointer); }
  Status upload(void* destination, const void* source, size_t bytes, Error*) override {
    if (bytes > 0) std::memcpy(destination, source, bytes);
    return Status::kOk;
  }
  Status download(void* destination, const void* source, size_t bytes, Error*) override {
    if (bytes > 0) std::memcpy(destination, source, bytes);
    return Status::kOk;
  }
  Status fill(void* destination, uint8_t value, size_t bytes, Error*) override {
    std::memset(destination, value, bytes);
    return Status::kOk;
  }
  Status synchronize(Error*) override { return Status::kOk; }
};

}  // namespace

std::unique_ptr<PluginMemory> make_host_memory() { return std::make_unique<HostMemory>(); }

PluginBuffer::~PluginBuffer() {
  if (data_ != nullptr) memory_->release(data_);
}

Status PluginBuffer::reserve(PluginMemory& memory, size_t bytes, Error* error) {
  // Kept across calls: a step reuses the last step's buffer when it is large enough, so steady
  // state allocates nothing (the CUDA driver's allocations synchronize the device).
  const size_t need = bytes == 0 ? 1 : bytes;
  bytes_ = bytes;
  if (data_ != nullptr && memory_ == &memory && capacity_ >= need) return Status::kOk;
  if (data_ != nullptr) memory_->release(data_);
  data_ = nullptr;
  capacity_ = 0;
  memory_ = &memory;
  if (Status s = memory.allocate(need, &data_, error); s != Status::kOk) return s;
  capacity_ = need;
  return Status::kOk;
}

Status PluginBuffer::allocate(PluginMemory& memory, size_t bytes, Error* error) {
  if (Status s = reserve(memory, bytes, error); s != Status::kOk) return s;
  return memory.fill(data_, 0xA5, bytes == 0 ? 1 : bytes, error);  // the bytes this call may write, only
}

Status PluginBuffer::allocate_from(PluginMemory& memory, const void* source, size_t bytes, Error* error) {
  if (Status s = reserve(memory, bytes, error); s != Status::kOk) return s;
  return memory.upload(data_, source, bytes, error);  // every byte is an input: nothing to poison
}

Status PluginBuffer::download_to(void* destination, size_t bytes, Error* error) const {
  return memory_->download(destination, data_, bytes, error);
}

DLTensor PluginBuffer::tensor(uint8_t code, uint8_t bits, std::vector<int64_t> shape, std::vector<int64_t> strides) {
  shape_ = std::move(shape);
  strides_ = std::move(strides);
  DLTensor t{};
  t.data = data_;
  t.device = memory_->device();
  t.ndim = static_cast<int32_t>(shape_.size());
  t.dtype = DLDataType{code, bits, 1};
  t.shape = shape_.data();
  t.strides = strides_.empty() ? nullptr : strides_.data();
  t.byte_offset = 0;
  return t;
}

}  // namespace qsa::backends
