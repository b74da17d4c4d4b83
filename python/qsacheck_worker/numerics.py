"""bf16 and fp8 e4m3fn conversions of SPEC 6 for NumPy (Debian 12 has no package for them).

bf16 values are carried as their uint16 bit patterns and e4m3fn values as uint8 patterns, as in
qsacheck's buffers, so nothing is lost; these give the exact binary32 values and the
round-to-nearest-even conversions back. Checked against qsacheck's reference conversions
(python/tests/test_numerics.py).
"""

import numpy as np


def bf16_to_f32(bits):
    """f(x): bf16 bit patterns (uint16) -> float32, exact."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32)


def f32_to_bf16(values):
    """bf16(x): float32 -> bf16 bit patterns by round-to-nearest-even; any NaN -> 0x7FFF;
    infinities kept; values beyond the largest bf16 round to infinity. 1.00390625 -> 0x3F80."""
    x = np.asarray(values, dtype=np.float32)
    u = x.view(np.uint32)
    rounded = (u + (np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1)))) >> np.uint32(16)
    return np.where(np.isnan(x), np.uint16(0x7FFF), rounded.astype(np.uint16))


def e4m3_from_bf16(bits):
    """bf16 bit patterns -> e4m3fn patterns (uint8) by round-to-nearest-even with saturation:
    finite values beyond +-448 and infinities -> +-448 (0x7E / 0xFE), NaN -> 0x7F."""
    with np.errstate(invalid="ignore", over="ignore"):  # NaN and inf are handled below, on purpose
        b = np.asarray(bits, dtype=np.uint16)
        v = bf16_to_f32(b).astype(np.float64)
        a = np.abs(v)
        sign = np.where((b & np.uint16(0x8000)) != 0, 0x80, 0x00).astype(np.int64)
        _, exponent = np.frexp(np.where(a > 0, a, 1.0))  # a = m * 2^exponent, m in [0.5, 1)
        e = np.maximum(exponent.astype(np.int64) - 1, -6)  # the subnormals share the smallest normal's scale
        q = np.rint(np.ldexp(np.where(np.isfinite(a), a, 0.0), (3 - e).astype(np.int32))).astype(np.int64)
        carried = q == 16
        biased = np.where(carried, e + 1, e) + 7
        mantissa = np.where(carried, 0, q - 8)
        normal = (biased << 3) | mantissa
        magnitude = np.where((e == -6) & (q < 8), q, normal)
        magnitude = np.where((biased > 15) | ((biased == 15) & (mantissa == 7)), 0x7E, magnitude)
        magnitude = np.where(a >= 448.0, 0x7E, magnitude)
        magnitude = np.where(a == 0.0, 0, magnitude)
        out = (sign | magnitude).astype(np.uint8)
        return np.where(np.isnan(v), np.uint8(0x7F), out)


def _e4m3_table():
    codes = np.arange(256)
    e = (codes >> 3) & 0xF
    m = codes & 0x7
    magnitude = np.where(e == 0, np.ldexp(m.astype(np.float64), -9), np.ldexp((8 + m).astype(np.float64), e - 10))
    values = np.where(codes & 0x80, -magnitude, magnitude)
    values[(e == 15) & (m == 7)] = np.nan
    return values.astype(np.float32)


_E4M3 = _e4m3_table()


def e4m3_to_f32(bits):
    """e4m3fn bit patterns (uint8) -> float32 (NaN for 0x7F and 0xFF)."""
    return _E4M3[np.asarray(bits, dtype=np.uint8)]
