#pragma once
// Small helpers of the adapters from a kernel outside the tree to the Backend interface (the
// plugin's and the worker's): byte sizes, the int32 copies of validated int64 inputs, and early
// return on a failed Status.

#include <cstddef>
#include <cstdint>
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

}  // namespace qsa::backends

#define QSA_TRY(call)                                     \
  do {                                                    \
    if (Status s_ = (call); s_ != Status::kOk) return s_; \
  } while (0)
