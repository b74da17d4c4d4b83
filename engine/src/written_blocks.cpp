#include "qsa/engine/written_blocks.hpp"

#include <algorithm>

namespace qsa::engine {

std::vector<ByteRange> written_blocks(const CacheLayout& layout, const CacheBytes& a, const CacheBytes& b) {
  const size_t size = std::min(a.size(), b.size());
  const auto block = static_cast<size_t>(std::max<int64_t>(0, layout.block_stride * layout.element_bytes));
  std::vector<ByteRange> stretches;
  if (size == 0) return stretches;
  if (block == 0) return {ByteRange{0, size}};
  for (const ByteRange& r : union_of(a.maybe_nonzero(), b.maybe_nonzero())) {
    if (r.first >= size) break;
    const size_t first = r.first / block * block;
    const size_t last = std::min(size, (std::min(r.second, size) + block - 1) / block * block);
    if (!stretches.empty() && first <= stretches.back().second)
      stretches.back().second = std::max(stretches.back().second, last);
    else
      stretches.emplace_back(first, last);
  }
  return stretches;
}

CacheLayout stretch_layout(const CacheLayout& layout, const ByteRange& stretch) {
  CacheLayout part = layout;
  const int64_t block = layout.block_stride * layout.element_bytes;
  part.num_blocks = block > 0 ? static_cast<int64_t>(stretch.second - stretch.first) / block : 0;
  return part;
}

}  // namespace qsa::engine
