#include "qsa/cache_bytes.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace qsa {
namespace {

size_t page_size() {
  static const size_t size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

bool all_zero(const uint8_t* p, size_t n) { return n == 0 || (p[0] == 0 && std::memcmp(p, p + 1, n - 1) == 0); }

// /proc/self/pagemap: one 64-bit entry per virtual page; bit 63 present, bit 62 swapped. Opened
// once; -1 where the kernel does not offer it (then every page counts as possibly written).
int pagemap_fd() {
  static const int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  return fd;
}

// Appends the pages of [base, base + bytes) the kernel holds (present or swapped), as byte ranges
// from base; false when pagemap cannot be read.
bool held_pages(const uint8_t* base, size_t bytes, std::vector<ByteRange>* ranges) {
  const int fd = pagemap_fd();
  if (fd < 0) return false;
  const size_t page = page_size();
  const size_t first_page = reinterpret_cast<uintptr_t>(base) / page;
  const size_t pages = (bytes + page - 1) / page;
  constexpr size_t kBatch = 4096;  // entries per read: 32 KiB
  std::vector<uint64_t> entries(kBatch);
  for (size_t done = 0; done < pages;) {
    const size_t n = std::min(kBatch, pages - done);
    const auto want = static_cast<ssize_t>(n * sizeof(uint64_t));
    const auto offset = static_cast<off_t>((first_page + done) * sizeof(uint64_t));
    if (pread(fd, entries.data(), static_cast<size_t>(want), offset) != want) return false;
    for (size_t i = 0; i < n; ++i) {
      if ((entries[i] >> 62) == 0) continue;  // neither present nor swapped: never written
      const size_t from = (done + i) * page;
      const size_t to = std::min(from + page, bytes);
      if (!ranges->empty() && ranges->back().second == from)
        ranges->back().second = to;
      else
        ranges->emplace_back(from, to);
    }
    done += n;
  }
  return true;
}

}  // namespace

CacheBytes::CacheBytes(const CacheBytes& other) { *this = other; }

CacheBytes& CacheBytes::operator=(const CacheBytes& other) {
  if (this == &other) return *this;
  CacheBytes copy;
  copy.reserve_zeroed(other.size_);
  // Only what may be non-zero, a page at a time, and zero pages not at all (the copy reads zero
  // there already): a copy costs the memory the original uses.
  const size_t page = page_size();
  for (const ByteRange& r : other.maybe_nonzero())
    for (size_t at = r.first; at < r.second; at += page) {
      const size_t n = std::min(page, r.second - at);
      if (!copy.mapped_ || !all_zero(other.data_ + at, n)) std::memcpy(copy.data_ + at, other.data_ + at, n);
    }
  swap(copy);
  return *this;
}

CacheBytes& CacheBytes::operator=(CacheBytes&& other) noexcept {
  if (this != &other) {
    release();
    swap(other);
  }
  return *this;
}

void CacheBytes::swap(CacheBytes& other) noexcept {
  std::swap(data_, other.data_);
  std::swap(size_, other.size_);
  std::swap(reserved_, other.reserved_);
  std::swap(mapped_, other.mapped_);
}

void CacheBytes::release() noexcept {
  if (mapped_)
    munmap(data_, reserved_);
  else
    std::free(data_);
  data_ = nullptr;
  size_ = reserved_ = 0;
  mapped_ = false;
}

void CacheBytes::reserve_zeroed(size_t size) {
  release();
  if (size == 0) return;
  if (size >= kMappedFrom) {
    const size_t page = page_size();
    const size_t reserved = (size + page - 1) / page * page;
    void* p = mmap(nullptr, reserved, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    // Small pages: a huge page would commit 2 MiB for the first byte written into it.
    madvise(p, reserved, MADV_NOHUGEPAGE);
    data_ = static_cast<uint8_t*>(p);
    reserved_ = reserved;
    mapped_ = true;
  } else {
    data_ = static_cast<uint8_t*>(std::calloc(size, 1));
    if (data_ == nullptr) throw std::bad_alloc();
    reserved_ = size;
  }
  size_ = size;
}

void CacheBytes::assign(size_t size, uint8_t value) {
  reserve_zeroed(size);
  if (value != 0 && size != 0) std::memset(data_, value, size);
}

void CacheBytes::resize(size_t size) {
  CacheBytes bigger;
  bigger.reserve_zeroed(size);
  for (const ByteRange& r : maybe_nonzero())
    if (r.first < size) std::memcpy(bigger.data_ + r.first, data_ + r.first, std::min(r.second, size) - r.first);
  swap(bigger);
}

std::vector<ByteRange> CacheBytes::maybe_nonzero() const {
  std::vector<ByteRange> ranges;
  if (size_ == 0) return ranges;
  if (mapped_ && held_pages(data_, size_, &ranges)) return ranges;
  return {ByteRange{0, size_}};  // heap memory, or no pagemap: every byte may be written
}

std::vector<ByteRange> union_of(const std::vector<ByteRange>& a, const std::vector<ByteRange>& b) {
  std::vector<ByteRange> all(a);
  all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end());
  std::vector<ByteRange> merged;
  for (const ByteRange& r : all) {
    if (!merged.empty() && r.first <= merged.back().second)
      merged.back().second = std::max(merged.back().second, r.second);
    else
      merged.push_back(r);
  }
  return merged;
}

bool operator==(const CacheBytes& a, const CacheBytes& b) {
  if (a.size() != b.size()) return false;
  for (const ByteRange& r : union_of(a.maybe_nonzero(), b.maybe_nonzero()))
    if (std::memcmp(a.data() + r.first, b.data() + r.first, r.second - r.first) != 0) return false;
  return true;
}

}  // namespace qsa
