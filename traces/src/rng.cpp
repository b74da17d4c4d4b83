#include "qsa/traces/rng.hpp"

namespace qsa::traces {

uint64_t Rng::below(uint64_t bound) {
  if (bound == 0) return 0;
  // Lemire, "Fast random integer generation in an interval" (2019), with the 128-bit product.
  unsigned __int128 product = static_cast<unsigned __int128>(next()) * bound;
  auto low = static_cast<uint64_t>(product);
  if (low < bound) {
    const uint64_t threshold = (0 - bound) % bound;
    while (low < threshold) {
      product = static_cast<unsigned __int128>(next()) * bound;
      low = static_cast<uint64_t>(product);
    }
  }
  return static_cast<uint64_t>(product >> 64);
}

int64_t Rng::range(int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  const auto span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;  // 0 means the full 2^64 range
  const uint64_t offset = span == 0 ? next() : below(span);
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + offset);
}

}  // namespace qsa::traces
