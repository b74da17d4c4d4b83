#pragma once
// One lane's chunk of a row: the team shape, and the loads and stores of a chunk of E elements.
// Fast: the launcher found every row 16-byte aligned (ring rows 8-byte aligned) and the RoPE
// table's rows 16-byte aligned, so accesses are unconditional vectors; otherwise element by element.

#include <cstdint>

#include "kernels/step_update_arithmetic.cuh"
#include "kernels/step_update_params.hpp"

namespace qsa::cuda::detail {

template <int D>
struct TeamShape {
  static constexpr int kLanes = D / 8 < 32 ? D / 8 : 32;  // lanes per row: 4, 8, 16, 32, 32
  static constexpr int kElems = D / kLanes;               // elements per lane: 8, 8, 8, 8, 16
  /// Teams in a block of `Threads` threads.
  template <int Threads = kStepThreads>
  static constexpr int kTeamsPerBlock = Threads / kLanes;
};

__device__ __forceinline__ float low_bf16(uint32_t pair) { return __uint_as_float(pair << 16); }
__device__ __forceinline__ float high_bf16(uint32_t pair) { return __uint_as_float(pair & 0xFFFF0000u); }

// How a Fast-mode vector access treats the caches. kStreaming (ld.global.cs, st.global.cs: evict
// first) marks the bytes the step streams through once: q in, q out and the keys its groups pool.
// The three together gain 1.6 to 4.3 % at mixed and prefill (bf16) and up to 4.7 % at decode; the
// subsets measured do not (docs/decisions.md, "Cache hints in the step kernel"). The other reads (the RoPE
// table, positions, metadata, the ring) and the compressed rows, which the indexer reads next,
// keep the default.
enum class CacheHint { kDefault, kStreaming };

template <CacheHint Hint, typename Vector>
__device__ __forceinline__ Vector load_vector(const Vector* p) {
  if constexpr (Hint == CacheHint::kStreaming)
    return __ldcs(p);
  else
    return *p;
}

template <CacheHint Hint, typename Vector>
__device__ __forceinline__ void store_vector(Vector* p, const Vector& v) {
  if constexpr (Hint == CacheHint::kStreaming)
    __stcs(p, v);
  else
    *p = v;
}

// A lane's chunk as E/2 packed bf16 pairs (loads stay whole vectors when values are unpacked
// later), from a 16-byte aligned row (q, k, the RoPE table, the norm weights) in Fast mode.
template <int E, bool Fast, CacheHint Hint = CacheHint::kDefault>
__device__ __forceinline__ void load_bits(const uint16_t* p, uint32_t (&bits)[E / 2]) {
  if constexpr (Fast && E == 4) {  // a half-layout piece (step_q_halves.cuh): 8-byte aligned
    const uint2 q = load_vector<Hint>(reinterpret_cast<const uint2*>(p));
    bits[0] = q.x;
    bits[1] = q.y;
  } else if constexpr (Fast) {
    static_assert(E % 8 == 0, "16-byte vectors");
#pragma unroll
    for (int c = 0; c < E / 8; ++c) {
      const uint4 q = load_vector<Hint>(reinterpret_cast<const uint4*>(p + 8 * c));
      bits[4 * c] = q.x;
      bits[4 * c + 1] = q.y;
      bits[4 * c + 2] = q.z;
      bits[4 * c + 3] = q.w;
    }
  } else {
#pragma unroll
    for (int i = 0; i < E / 2; ++i)
      bits[i] = static_cast<uint32_t>(p[2 * i]) | static_cast<uint32_t>(p[2 * i + 1]) << 16;
  }
}

// The same from a ring row (P + 12 elements with positions: 8-byte aligned in Fast mode).
template <int E, bool Fast>
__device__ __forceinline__ void load_ring_bits(const uint16_t* p, uint32_t (&bits)[E / 2]) {
  if constexpr (Fast) {
#pragma unroll
    for (int c = 0; c < E / 4; ++c) {
      const uint2 q = *reinterpret_cast<const uint2*>(p + 4 * c);
      bits[2 * c] = q.x;
      bits[2 * c + 1] = q.y;
    }
  } else {
    load_bits<E, false>(p, bits);
  }
}

template <int E>
__device__ __forceinline__ void unpack(const uint32_t (&bits)[E / 2], float (&v)[E]) {
#pragma unroll
  for (int i = 0; i < E / 2; ++i) {
    v[2 * i] = low_bf16(bits[i]);
    v[2 * i + 1] = high_bf16(bits[i]);
  }
}

template <int E, bool Fast>
__device__ __forceinline__ void load_bf16(const uint16_t* p, float (&v)[E]) {
  uint32_t bits[E / 2];
  load_bits<E, Fast>(p, bits);
  unpack<E>(bits, v);
}

// A chunk of key bits into a ring row (8-byte stores in Fast mode).
template <int E, bool Fast>
__device__ __forceinline__ void store_bits_to_ring(uint16_t* row, const uint32_t (&bits)[E / 2]) {
  if constexpr (Fast) {
#pragma unroll
    for (int c = 0; c < E / 4; ++c) *reinterpret_cast<uint2*>(row + 4 * c) = make_uint2(bits[2 * c], bits[2 * c + 1]);
  } else {
#pragma unroll
    for (int i = 0; i < E / 2; ++i) {
      row[2 * i] = static_cast<uint16_t>(bits[i] & 0xFFFFu);
      row[2 * i + 1] = static_cast<uint16_t>(bits[i] >> 16);
    }
  }
}

// Stores a lane's chunk, held as E/2 packed bf16 pairs, in the store dtype at `row` + offset
// elements: 16-byte stores of bf16 or 8-byte stores of e4m3 in Fast mode (8 and 4 bytes for a
// 4-element piece of the halves layout).
template <int E, typename Policy, bool Fast, CacheHint Hint = CacheHint::kDefault>
__device__ __forceinline__ void store_chunk(void* row, int offset, const uint32_t (&y)[E / 2], bool fp8) {
  if (!fp8) {
    uint16_t* p = static_cast<uint16_t*>(row) + offset;
    if constexpr (Fast && E == 4) {
      store_vector<Hint>(reinterpret_cast<uint2*>(p), make_uint2(y[0], y[1]));
    } else if constexpr (Fast) {
#pragma unroll
      for (int c = 0; c < E / 8; ++c)
        store_vector<Hint>(reinterpret_cast<uint4*>(p + 8 * c),
                           make_uint4(y[4 * c], y[4 * c + 1], y[4 * c + 2], y[4 * c + 3]));
    } else {
#pragma unroll
      for (int i = 0; i < E / 2; ++i) {
        p[2 * i] = static_cast<uint16_t>(y[i] & 0xFFFFu);
        p[2 * i + 1] = static_cast<uint16_t>(y[i] >> 16);
      }
    }
    return;
  }
  uint32_t b[E / 4];
#pragma unroll
  for (int i = 0; i < E / 4; ++i)
    b[i] = Policy::to_e4m3x2(y[2 * i]) | static_cast<uint32_t>(Policy::to_e4m3x2(y[2 * i + 1])) << 16;
  uint8_t* p = static_cast<uint8_t*>(row) + offset;
  if constexpr (Fast && E == 4) {
    store_vector<Hint>(reinterpret_cast<uint32_t*>(p), b[0]);
  } else if constexpr (Fast) {
#pragma unroll
    for (int c = 0; c < E / 8; ++c)
      store_vector<Hint>(reinterpret_cast<uint2*>(p + 8 * c), make_uint2(b[2 * c], b[2 * c + 1]));
  } else {
#pragma unroll
    for (int i = 0; i < E; ++i) p[i] = static_cast<uint8_t>(b[i / 4] >> (8 * (i % 4)));
  }
}

// Three int64 of a ring row's position tail: 8-byte aligned in Fast mode (P = D is a multiple of
// 4 and the rows are 8-byte aligned), only 2-byte aligned in general.
template <bool Fast>
__device__ __forceinline__ void load_tail(const uint16_t* p, int64_t (&pos)[3]) {
#pragma unroll
  for (int a = 0; a < 3; ++a) {
    if constexpr (Fast) {
      pos[a] = reinterpret_cast<const int64_t*>(p)[a];
    } else {
      uint64_t v = 0;
#pragma unroll
      for (int i = 3; i >= 0; --i) v = v << 16 | p[4 * a + i];
      pos[a] = static_cast<int64_t>(v);
    }
  }
}

template <bool Fast>
__device__ __forceinline__ void store_tail(uint16_t* p, const int64_t (&pos)[3]) {
#pragma unroll
  for (int a = 0; a < 3; ++a) {
    if constexpr (Fast) {
      reinterpret_cast<int64_t*>(p)[a] = pos[a];
    } else {
#pragma unroll
      for (int i = 0; i < 4; ++i) p[4 * a + i] = static_cast<uint16_t>(static_cast<uint64_t>(pos[a]) >> (16 * i));
    }
  }
}

// The row's positions (t, h, w); one axis repeated when positions are 1-D.
__device__ __forceinline__ void row_positions(const StepParams& p, int64_t t, int64_t (&pos)[3]) {
  if (p.position_axes == 3) {
    pos[0] = p.positions[t];
    pos[1] = p.positions[p.num_tokens + t];
    pos[2] = p.positions[2 * p.num_tokens + t];
  } else {
    pos[0] = pos[1] = pos[2] = p.positions[t];
  }
}

}  // namespace qsa::cuda::detail
