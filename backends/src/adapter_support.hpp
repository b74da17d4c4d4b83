#pragma once
// Small helpers of the adapters from a kernel outside the tree to the Backend interface (the
// plugin's and the worker's): byte sizes, the int32 copies of validated int64 inputs, and early
// return on a failed Status.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "qsa/status.hpp"
#include "qsa/step_types.hpp"

namespace qsa::backends {

/// A planted variant's name must survive "plugin:PATH#NAME" or "--bug NAME" on a command line and
/// in a file name: [A-Za-z0-9_.-]+.
inline bool is_variant_name(const char* name) {
  if (name == nullptr || *name == '\0') return false;
  for (const char* c = name; *c != '\0'; ++c)
    if (std::strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-", *c) == nullptr) return false;
  return true;
}

template <typename T>
size_t bytes_of(const std::vector<T>& v) {
  return v.size() * sizeof(T);
}

/// qsl and seq_lens cross as int32 (the ABI's and the protocol's); validate() has checked they fit.
inline std::vector<int32_t> narrow(const std::vector<int64_t>& values) {
  return std::vector<int32_t>(values.begin(), values.end());
}

/// memcpy that also takes the null pointer of an empty vector (memcpy's own contract forbids it).
inline void copy_bytes(void* destination, const void* source, size_t bytes) {
  if (bytes > 0) std::memcpy(destination, source, bytes);
}

/// memcmp's equality, for empty ranges too.
inline bool same_bytes(const void* a, const void* b, size_t bytes) {
  return bytes == 0 || std::memcmp(a, b, bytes) == 0;
}

/// Calls `copy(offset, bytes)` for each maximal stretch where `a` and `b` differ, in order. Equal
/// stretches are skipped 4 KiB, then 256 bytes at a time by memcmp: a pass costs about a memcmp of
/// the range, and what follows (an upload, a copy back) only the bytes that changed.
template <typename Copy>
void for_each_difference(const uint8_t* a, const uint8_t* b, size_t size, Copy&& copy) {
  constexpr size_t kLarge = 4096;
  constexpr size_t kChunk = 256;
  size_t i = 0;
  while (i < size) {
    while (i + kLarge <= size && std::memcmp(a + i, b + i, kLarge) == 0) i += kLarge;
    while (i + kChunk <= size && std::memcmp(a + i, b + i, kChunk) == 0) i += kChunk;
    while (i < size && a[i] == b[i]) ++i;
    if (i == size) return;
    size_t end = i + 1;
    // A stretch ends at the first 64 equal bytes, so a row with a few equal bytes inside stays one copy.
    for (size_t equal = 0; end < size && equal < 64; ++end) equal = a[end] == b[end] ? equal + 1 : 0;
    if (end < size) end -= 64;
    copy(i, end - i);
    i = end;
  }
}

/// Calls `copy(offset, bytes)` for each range the owner of `cache` wrote since its journal's token
/// (CacheJournal::host_edits), clipped to the cache.
template <typename Copy>
void for_each_host_edit(const CacheBuffer& cache, Copy&& copy) {
  const size_t size = cache.bytes.size();
  for (const ByteRange& e : cache.journal.host_edits)
    if (e.first < size) copy(e.first, std::min(e.second, size) - e.first);
}

}  // namespace qsa::backends

#define QSA_TRY(call)                                     \
  do {                                                    \
    if (Status s_ = (call); s_ != Status::kOk) return s_; \
  } while (0)
