#pragma once
// Small helpers of the adapters from a kernel outside the tree to the Backend interface (the
// plugin's and the worker's): byte sizes, the int32 copies of validated int64 inputs, and early
// return on a failed Status.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "qsa/status.hpp"

namespace qsa::backends {

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

}  // namespace qsa::backends

#define QSA_TRY(call)                                     \
  do {                                                    \
    if (Status s_ = (call); s_ != Status::kOk) return s_; \
  } while (0)
