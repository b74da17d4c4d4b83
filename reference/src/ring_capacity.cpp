#include "qsa/ring_capacity.hpp"

#include <string>

namespace qsa {

const char* to_string(RingRule rule) { return rule == RingRule::kSeed ? "seed" : "widen"; }

Status ring_capacity(int64_t compress_ratio, int64_t num_speculative_tokens, int64_t block_size, RingRule rule,
                     int64_t* capacity, Error* error) {
  const int64_t c = compress_ratio;
  const int64_t b = block_size;
  if (c < 1 || c > 1024)
    return invalid(error, "compress_ratio", -1, "out-of-range", "C = " + std::to_string(c) + " must be in [1, 1024]");
  if (num_speculative_tokens < 0 || num_speculative_tokens > (int64_t{1} << 20))
    return invalid(error, "num_speculative_tokens", -1, "out-of-range",
                   "drafts = " + std::to_string(num_speculative_tokens) + " must be in [0, 2^20]");
  if (b < 1 || b > 2147483647)
    return invalid(error, "block_size", -1, "out-of-range", "B = " + std::to_string(b) + " must be in [1, 2^31 - 1]");

  const int64_t seed = seed_ring_capacity(c, num_speculative_tokens);
  if (rule == RingRule::kSeed) {
    if (b % seed != 0)
      return invalid(
          error, "block_size", -1, "not-divisible",
          "ring capacity R = " + std::to_string(seed) + " must divide the block size B = " + std::to_string(b));
    *capacity = seed;
    return Status::kOk;
  }
  // The smallest divisor of B that is a multiple of C and >= seed; divisors come in pairs (d, B/d)
  // with d <= sqrt(B), so this is O(sqrt(B)) even for B near 2^31.
  int64_t best = 0;
  for (int64_t d = 1; d * d <= b; ++d) {
    if (b % d != 0) continue;
    for (const int64_t r : {d, b / d})
      if (r >= seed && r % c == 0 && (best == 0 || r < best)) best = r;
  }
  if (best != 0) {
    *capacity = best;
    return Status::kOk;
  }
  return invalid(error, "block_size", -1, "no-capacity",
                 "no multiple of C = " + std::to_string(c) + " between R = " + std::to_string(seed) +
                     " and the block size B = " + std::to_string(b) + " divides B");
}

}  // namespace qsa
