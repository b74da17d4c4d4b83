#pragma once
// Division of a non-negative 32-bit integer by a divisor fixed for the whole launch (C, S, R, Cb),
// by multiplication with a precomputed reciprocal (Granlund and Montgomery, "Division by invariant
// integers using multiplication", PLDI 1994, figure 4.1). Exact for every dividend in [0, 2^32)
// and every divisor in [1, 2^31]: integer arithmetic only, bitwise equal to n / d and n % d.
// Host and device code (the host side computes the multiplier and the tests check it).

#include <cstdint>

#ifdef __CUDACC__
#define QSA_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define QSA_HOST_DEVICE inline
#endif

namespace qsa::cuda::detail {

struct InvariantDivider {
  uint32_t divisor;     // d >= 1
  uint32_t multiplier;  // m = floor(2^32 (2^l - d) / d) + 1
  uint32_t shift;       // l = ceil(log2 d)

  /// The divider for d (1 <= d <= 2^31); host code.
  static InvariantDivider make(uint32_t d) {
    uint32_t l = 0;
    while ((uint64_t{1} << l) < d) ++l;
    const uint64_t m = ((uint64_t{1} << 32) * ((uint64_t{1} << l) - d)) / d + 1;
    return InvariantDivider{d, static_cast<uint32_t>(m), l};
  }

  QSA_HOST_DEVICE uint32_t quotient(uint32_t n) const {
#ifdef __CUDA_ARCH__
    const uint32_t high = __umulhi(n, multiplier);
#else
    const auto high = static_cast<uint32_t>((static_cast<uint64_t>(n) * multiplier) >> 32);
#endif
    return static_cast<uint32_t>((static_cast<uint64_t>(high) + n) >> shift);
  }

  QSA_HOST_DEVICE uint32_t remainder(uint32_t n) const { return n - quotient(n) * divisor; }

  /// Quotient of a non-negative int32 dividend (the kernel's positions, lengths and groups). Here
  /// high <= n < 2^31, so high + n fits 32 bits and the sum and shift stay 32-bit.
  QSA_HOST_DEVICE int32_t div(int32_t n) const {
    const auto u = static_cast<uint32_t>(n);
#ifdef __CUDA_ARCH__
    const uint32_t high = __umulhi(u, multiplier);
#else
    const auto high = static_cast<uint32_t>((static_cast<uint64_t>(u) * multiplier) >> 32);
#endif
    return static_cast<int32_t>((high + u) >> shift);
  }
  QSA_HOST_DEVICE int32_t mod(int32_t n) const {
    return static_cast<int32_t>(static_cast<uint32_t>(n) - static_cast<uint32_t>(div(n)) * divisor);
  }
};

}  // namespace qsa::cuda::detail
