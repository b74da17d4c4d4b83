#pragma once
// Where two caches of one layout may differ: the pages either store may have written
// (CacheBytes::maybe_nonzero()), widened to whole blocks so every row lies in one stretch. Outside
// these stretches both caches read zero, so a whole-cache comparison reads only them, and a cache
// that declares many blocks and uses a few is compared in the time its used blocks take.

#include <vector>

#include "qsa/step_types.hpp"

namespace qsa::engine {

/// Sorted, disjoint stretches of whole blocks of `layout`, within [0, min(a.size(), b.size())).
std::vector<ByteRange> written_blocks(const CacheLayout& layout, const CacheBytes& a, const CacheBytes& b);

/// The layout of the blocks [first_byte, last_byte) of `layout` (whole blocks), as a cache of its own.
CacheLayout stretch_layout(const CacheLayout& layout, const ByteRange& stretch);

}  // namespace qsa::engine
