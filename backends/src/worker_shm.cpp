#include "worker_shm.hpp"

#include <fcntl.h>
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
  fd_ = memfd_create("qsacheck-worker", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd_ < 0) return system_error(error, "memfd_create");
  // A worker holds the same file: had it shrunk it after the handshake, the next touch of a page
  // past its end here would be SIGBUS, the end of qsacheck instead of a finding. Sealed
  // against shrinking only: growing stays open, since reserve() grows it (docs/worker-protocol.md,
  // "Shared memory"); a worker's ftruncate to less fails with EPERM instead.
  if (fcntl(fd_, F_ADD_SEALS, F_SEAL_SHRINK) != 0) return system_error(error, "sealing the shared memory");
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
