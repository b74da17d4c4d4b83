#pragma once
// The project's random generator: splitmix64 with our own integer mapping, so a seed replays
// identically with any compiler or standard library (std:: distributions are not portable).

#include <cstdint>

namespace qsa::traces {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}

  /// Next 64 random bits (splitmix64).
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  /// Uniform in [0, bound); bound 0 gives 0. Lemire's multiply-shift with rejection (unbiased).
  uint64_t below(uint64_t bound);

  /// Uniform in [lo, hi] (inclusive); lo > hi gives lo.
  int64_t range(int64_t lo, int64_t hi);

  /// True with probability numerator / denominator.
  bool chance(uint64_t numerator, uint64_t denominator) { return below(denominator) < numerator; }

  /// Uniform in [0, 1) with 53 random bits.
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  /// An independent generator for a named sub-stream, so adding draws in one place does not
  /// shift the numbers drawn in another.
  Rng fork(uint64_t stream) const { return Rng(mix(state_ ^ mix(stream + 0x632BE59BD9B4E019ull))); }

  /// The splitmix64 finaliser: a good 64-bit hash of one word.
  static uint64_t mix(uint64_t x) {
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
  }

 private:
  uint64_t state_;
};

/// Hash of several words, order-sensitive (used to make row content a pure function of its origin).
inline uint64_t hash_words(uint64_t a, uint64_t b, uint64_t c = 0, uint64_t d = 0) {
  uint64_t h = Rng::mix(a + 0x9E3779B97F4A7C15ull);
  h = Rng::mix(h ^ (b + 0x9E3779B97F4A7C15ull));
  h = Rng::mix(h ^ (c + 0x9E3779B97F4A7C15ull));
  return Rng::mix(h ^ (d + 0x9E3779B97F4A7C15ull));
}

}  // namespace qsa::traces
