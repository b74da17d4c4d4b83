#pragma once
// SPEC 6 on the device: bf16 and fp8 conversions and the canonical operations, each rounded
// exactly as the reference (qsa/numerics.hpp) rounds. Every float operation is an explicit _rn
// intrinsic, so neither contraction into FMA nor a flush to zero can change a bit.

#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <cstdint>

namespace qsa::cuda::detail {

__device__ __forceinline__ float bf16_to_float(uint16_t x) { return __uint_as_float(static_cast<uint32_t>(x) << 16); }

// Round to nearest even; any NaN -> 0x7FFF (the reference's bf16_from_float). One cvt.rn.bf16.f32,
// whose canonical NaN is 0x7FFF (StepUpdateCudaConversions checks every rounding class).
__device__ __forceinline__ uint16_t float_to_bf16(float f) { return __bfloat16_as_ushort(__float2bfloat16_rn(f)); }

// Two at once (one cvt.rn.bf16x2.f32): low half from `lo`, high half from `hi`.
__device__ __forceinline__ uint32_t float2_to_bf16x2(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&v);
}

// bf16 -> e4m3fn, round to nearest even, finite values beyond +-448 and infinities -> +-448,
// NaN -> 0x7F whatever its sign (SPEC 6.4).
template <bool Saturate = true>
__device__ __forceinline__ uint8_t bf16_to_e4m3(uint16_t x) {
  if ((x & 0x7FFFu) > 0x7F80u) return 0x7F;
  return static_cast<uint8_t>(
      __nv_cvt_float_to_fp8(bf16_to_float(x), Saturate ? __NV_SATFINITE : __NV_NOSAT, __NV_E4M3));
}

// Two bf16 at once (low half first) -> two e4m3fn (low byte first), each as bf16_to_e4m3: one
// cvt.rn.satfinite.e4m3x2.f32 for the pair, then NaN -> 0x7F by bytes. The cvt gives a NaN for a
// NaN (and, without saturation, for a finite value beyond +-448), and the only e4m3fn codes whose
// seven low bits are all set are the two NaNs, so clearing the sign bit of those bytes is the rule.
// A byte's low seven bits plus one carry into its bit 7 exactly when they are all set (and never
// into the next byte): three integer operations instead of a byte-wise compare, which sm_90
// emulates in a dozen (SPEC 6.4's NaN rule, bit for bit).
template <bool Saturate = true>
__device__ __forceinline__ uint16_t bf16x2_to_e4m3x2(uint32_t x) {
  const float2 f = make_float2(__uint_as_float(x << 16), __uint_as_float(x & 0xFFFF0000u));
  const uint32_t r = __nv_cvt_float2_to_fp8x2(f, Saturate ? __NV_SATFINITE : __NV_NOSAT, __NV_E4M3);
  const uint32_t nan_signs = ((r & 0x7F7Fu) + 0x0101u) & 0x8080u;  // bit 7 of each NaN byte
  return static_cast<uint16_t>(r & ~nan_signs);
}

}  // namespace qsa::cuda::detail
