#include "worker_shm.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

namespace qsa::backends {
namespace {

Status system_error(Error* error, const std::string& call) {
  *error = Error{"worker", -1, "shared-memory", call + " failed: " + std::strerror(errno)};
  return Status::kInternalError;
}

constexpr size_t kPage = 1 << 21;  // sizes are whole 2 MiB units

size_t round_up(size_t bytes) { return (bytes + kPage - 1) / kPage * kPage; }

}  // namespace

SharedRegion::~SharedRegion() {
  if (data_ != nullptr) munmap(data_, size_);
  if (fd_ >= 0) close(fd_);
}

Status SharedRegion::create(size_t bytes, Error* error) {
  fd_ = memfd_create("qsacheck-worker", MFD_CLOEXEC);
  if (fd_ < 0) return system_error(error, "memfd_create");
  return reserve(bytes, error);
}

Status SharedRegion::reserve(size_t bytes, Error* error) {
  if (bytes <= size_) return Status::kOk;
  const size_t size = round_up(std::max(bytes, size_ + size_ / 2));
  if (ftruncate(fd_, static_cast<off_t>(size)) != 0) return system_error(error, "ftruncate of the shared memory");
  void* mapped = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (mapped == MAP_FAILED) return system_error(error, "mmap of the shared memory");
  if (data_ != nullptr) munmap(data_, size_);
  data_ = static_cast<uint8_t*>(mapped);
  size_ = size;
  return Status::kOk;
}

}  // namespace qsa::backends
