#pragma once
// The bytes of one paged cache: a dense address range (a backend sees data() and size(), as
// before) whose memory follows the bytes written, not the bytes declared. A large store reserves
// its range with an anonymous MAP_NORESERVE mapping, so a page costs memory only once something
// writes it, and an untouched page reads as zero; a small one lives on the heap, zeroed. So a
// scenario that declares many blocks and uses a few costs what it uses (docs/decisions.md,
// "Caches that follow the blocks in use").
//
// Copies keep that: only the pages that may hold a non-zero byte are copied (maybe_nonzero()),
// and equality compares only those pages of either side.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace qsa {

/// A range of bytes [first, last).
using ByteRange = std::pair<size_t, size_t>;

class CacheBytes {
 public:
  /// Stores of at least this many bytes are mapped (lazily committed); smaller ones are heap memory.
  static constexpr size_t kMappedFrom = size_t{1} << 20;

  CacheBytes() = default;
  /// `size` bytes, every one `value` (0: nothing is written, so nothing is committed).
  explicit CacheBytes(size_t size, uint8_t value = 0) { assign(size, value); }
  CacheBytes(const CacheBytes& other);
  CacheBytes& operator=(const CacheBytes& other);
  CacheBytes(CacheBytes&& other) noexcept { swap(other); }
  CacheBytes& operator=(CacheBytes&& other) noexcept;
  ~CacheBytes() { release(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  uint8_t* begin() { return data_; }
  uint8_t* end() { return data_ + size_; }
  const uint8_t* begin() const { return data_; }
  const uint8_t* end() const { return data_ + size_; }
  uint8_t& operator[](size_t i) { return data_[i]; }
  const uint8_t& operator[](size_t i) const { return data_[i]; }
  uint8_t& back() { return data_[size_ - 1]; }

  /// A fresh store of `size` bytes, every one `value`. Throws std::bad_alloc when the range
  /// cannot be reserved.
  void assign(size_t size, uint8_t value);
  /// Keeps the first min(size, size()) bytes; bytes past the old size read zero.
  void resize(size_t size);
  void pop_back() { --size_; }
  void swap(CacheBytes& other) noexcept;

  /// Whether the store is mapped (lazily committed) rather than heap memory.
  bool mapped() const { return mapped_; }
  /// Sorted, disjoint ranges outside of which every byte reads zero: for a mapped store, the pages
  /// the kernel holds for it (present or swapped out: written, or read once), for a heap store
  /// the whole store. Never misses a written byte; a page merely read is listed too.
  std::vector<ByteRange> maybe_nonzero() const;

 private:
  void release() noexcept;
  void reserve_zeroed(size_t size);  // a fresh store of `size` zero bytes

  uint8_t* data_ = nullptr;  // [size_] (mapped: [reserved_] reserved, page aligned)
  size_t size_ = 0;
  size_t reserved_ = 0;
  bool mapped_ = false;
};

/// Read-only bytes: a cache's, a q_out's, or a stretch of either (what the comparisons read).
class ByteView {
 public:
  ByteView(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  ByteView(const std::vector<uint8_t>& v) : data_(v.data()), size_(v.size()) {}  // NOLINT: implicit by design
  ByteView(const CacheBytes& c) : data_(c.data()), size_(c.size()) {}            // NOLINT: implicit by design
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  const uint8_t* begin() const { return data_; }
  const uint8_t* end() const { return data_ + size_; }
  const uint8_t& operator[](size_t i) const { return data_[i]; }

 private:
  const uint8_t* data_;  // [size_]
  size_t size_;
};

/// The union of two sets of sorted, disjoint ranges, sorted and disjoint.
std::vector<ByteRange> union_of(const std::vector<ByteRange>& a, const std::vector<ByteRange>& b);

/// Equal sizes and equal bytes (only the pages maybe_nonzero() names on either side are read).
bool operator==(const CacheBytes& a, const CacheBytes& b);
inline bool operator!=(const CacheBytes& a, const CacheBytes& b) { return !(a == b); }

}  // namespace qsa
