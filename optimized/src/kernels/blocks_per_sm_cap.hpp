#pragma once
// A cap on the blocks an SM holds, set through shared memory: a launch that asks for unused
// dynamic shared memory leaves room for fewer of its blocks. Host code, testable without a device.

#include <cstddef>

namespace qsa::cuda::detail {

/// The dynamic shared bytes a launch asks for so that an SM with `shared_per_sm` bytes holds at
/// most `blocks` of its blocks, each of which also takes `reserved_per_block` (the system's) and
/// `static_bytes` (its own arrays). 0 when `blocks` is 0 (no cap) or the block already needs that
/// much. The cap never raises a limit set by registers or threads.
inline size_t dynamic_bytes_capping_blocks(size_t shared_per_sm, size_t reserved_per_block, size_t static_bytes,
                                           int blocks) {
  if (blocks <= 0) return 0;
  const size_t per_block = shared_per_sm / static_cast<size_t>(blocks);
  const size_t used = reserved_per_block + static_bytes;
  return per_block > used ? per_block - used : 0;
}

}  // namespace qsa::cuda::detail
