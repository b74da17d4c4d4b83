// Unfused baseline of the step update: a block of D threads per row, one element per thread, the
// sum of squares as a shared-memory pairwise tree, three launches.

#include <algorithm>

#include "qsa/cuda/cuda_check.hpp"
#include "qsa/cuda/detail/kernel_variants.cuh"
#include "qsa/timing/baseline_step_update.hpp"

namespace qsa::timing {
namespace {

using cuda::detail::bf16_to_e4m3;
using cuda::detail::bf16_to_float;
using cuda::detail::float_to_bf16;

__device__ void positions_of(const cuda::StepUpdateDeviceArgs& a, int t, int64_t* pos) {
  for (int axis = 0; axis < 3; ++axis)
    pos[axis] = a.positions[(a.position_axes == 3 ? axis : 0) * static_cast<int64_t>(a.num_tokens) + t];
}

// Norm (the pairwise tree over shared memory), RoPE at `pos`, store element d in the store dtype.
__device__ void transform(const cuda::StepUpdateDeviceArgs& a, float x, const uint16_t* weight, const int64_t* pos,
                          void* out) {
  extern __shared__ float tree[];  // [2 * D]: squares, then the normed row
  const int d = threadIdx.x;
  const int dim = a.head_dim;
  tree[d] = __fmul_rn(x, x);
  __syncthreads();
  for (int width = dim; width > 1; width /= 2) {
    const float pair = d < width / 2 ? __fadd_rn(tree[2 * d], tree[2 * d + 1]) : 0.0f;
    __syncthreads();
    if (d < width / 2) tree[d] = pair;
    __syncthreads();
  }
  const float rrms = __fdiv_rn(1.0f, __fsqrt_rn(__fadd_rn(__fdiv_rn(tree[0], static_cast<float>(dim)), a.eps)));
  uint16_t y = float_to_bf16(__fmul_rn(__fmul_rn(x, rrms), __fadd_rn(1.0f, bf16_to_float(weight[d]))));
  float* row = tree + dim;
  row[d] = bf16_to_float(y);
  __syncthreads();
  const int hp = a.rotary_dim / 2;
  if (d < a.rotary_dim) {
    const int i = d < hp ? d : d - hp;
    int axis = 0;
    if (a.mrope && i % 3 == 1 && i < 3 * a.mrope_sections[1]) axis = 1;
    if (a.mrope && i % 3 == 2 && i < 3 * a.mrope_sections[2]) axis = 2;
    const float c = bf16_to_float(a.cos_sin[pos[axis] * a.rotary_dim + i]);
    const float s = bf16_to_float(a.cos_sin[pos[axis] * a.rotary_dim + hp + i]);
    y = d < hp ? float_to_bf16(__fsub_rn(__fmul_rn(row[i], c), __fmul_rn(row[hp + i], s)))
               : float_to_bf16(__fadd_rn(__fmul_rn(row[hp + i], c), __fmul_rn(row[i], s)));
  }
  if (out == nullptr) return;
  if (a.store_dtype == StoreDtype::kBf16)
    static_cast<uint16_t*>(out)[d] = y;
  else
    static_cast<uint8_t*>(out)[d] = bf16_to_e4m3(y);
}

__device__ int ring_block(const cuda::StepUpdateDeviceArgs& a, int j) {
  if (a.ring_block_table_cols == 0) return -1;
  const int b = a.ring_block_table[j * a.ring_block_table_row_stride];
  return b >= 0 && b < a.ring_num_blocks ? b : -1;
}

__global__ void pool_kernel(const cuda::StepUpdateDeviceArgs a) {
  const int64_t item = blockIdx.x;
  const int j = a.k_work_metadata[2 * item];
  const int w = a.k_work_metadata[2 * item + 1];
  if (j < 0) return;
  const int first = a.query_start_loc[j];
  const int64_t end = a.seq_lens[j];
  const int64_t start = end - (a.query_start_loc[j + 1] - first);
  const int64_t g = start / a.compress_ratio + w;
  if (g >= end / a.compress_ratio) return;
  const int64_t closing = first + (g * a.compress_ratio + a.compress_ratio - 1 - start);
  const int64_t logical = g / a.storage_block_size;
  if (logical >= a.block_table_cols || a.common_slot_mapping[closing] < 0) return;
  const int b = a.block_table[j * a.block_table_row_stride + logical * a.block_table_col_stride];
  if (b < 0 || b >= a.compressed_num_blocks) return;
  const int rb = ring_block(a, j);
  const int d = threadIdx.x;
  float s = 0.0f;
  for (int i = 0; i < a.compress_ratio; ++i) {
    const int64_t m = g * a.compress_ratio + i;
    float v = 0.0f;
    if (m >= start)
      v = bf16_to_float(a.keys[(first + m - start) * a.head_dim + d]);
    else if (rb >= 0)
      v = bf16_to_float(a.ring[rb * a.ring_block_stride + (m % a.ring_capacity) * a.ring_row_stride + d]);
    s = i == 0 ? v : __fadd_rn(s, v);
  }
  int64_t pos[3] = {g * a.compress_ratio, g * a.compress_ratio, g * a.compress_ratio};
  const int64_t g0 = g * a.compress_ratio;
  if (a.ring_positions) {
    if (g0 >= start)
      positions_of(a, static_cast<int>(first + g0 - start), pos);
    else if (rb >= 0) {
      const uint16_t* tail =
          a.ring + rb * a.ring_block_stride + (g0 % a.ring_capacity) * a.ring_row_stride + a.head_dim;
      for (int axis = 0; axis < 3; ++axis) {
        uint64_t v = 0;
        for (int k = 3; k >= 0; --k) v = v << 16 | tail[4 * axis + k];
        pos[axis] = static_cast<int64_t>(v);
      }
    } else {
      pos[0] = pos[1] = pos[2] = 0;
    }
    for (int axis = 0; axis < 3; ++axis)
      if (pos[axis] < 0 || pos[axis] >= a.max_position) {
        if (d == 0) atomicOr(a.status, 1);
        return;
      }
  }
  const int64_t slot_block = b;
  const int64_t row = g % a.storage_block_size;
  uint8_t* base =
      static_cast<uint8_t*>(a.compressed) + (slot_block * a.compressed_block_stride + row * a.compressed_row_stride) *
                                                (a.store_dtype == StoreDtype::kBf16 ? 2 : 1);
  transform(a, bf16_to_float(float_to_bf16(__fdiv_rn(s, static_cast<float>(a.compress_ratio)))), a.w_k, pos, base);
}

__global__ void commit_kernel(const cuda::StepUpdateDeviceArgs a) {
  const int j = blockIdx.x;
  const int rb = ring_block(a, j);
  const int first = a.query_start_loc[j];
  const int end_row = a.query_start_loc[j + 1];
  if (rb < 0 || end_row == first) return;
  const int64_t start = a.seq_lens[j] - (end_row - first);
  const int from = end_row - first > a.ring_capacity ? end_row - a.ring_capacity : first;
  for (int t = from; t < end_row; ++t) {
    uint16_t* row = a.ring + rb * a.ring_block_stride + ((start + t - first) % a.ring_capacity) * a.ring_row_stride;
    for (int d = threadIdx.x; d < a.head_dim; d += blockDim.x)
      row[d] = a.keys[static_cast<int64_t>(t) * a.head_dim + d];
    if (a.ring_positions && threadIdx.x == 0) {
      int64_t pos[3];
      positions_of(a, t, pos);
      for (int axis = 0; axis < 3; ++axis)
        for (int k = 0; k < 4; ++k)
          row[a.head_dim + 4 * axis + k] = static_cast<uint16_t>(static_cast<uint64_t>(pos[axis]) >> (16 * k));
    }
  }
}

__global__ void q_kernel(const cuda::StepUpdateDeviceArgs a) {
  const int64_t unit = blockIdx.x;  // row * HQ + head
  const int t = static_cast<int>(unit / a.num_heads);
  int64_t pos[3];
  positions_of(a, t, pos);
  const int bytes = a.store_dtype == StoreDtype::kBf16 ? 2 : 1;
  transform(a, bf16_to_float(a.queries[unit * a.head_dim + threadIdx.x]), a.w_q, pos,
            static_cast<uint8_t*>(a.q_out) + unit * a.head_dim * bytes);
}

// Each thread moves vectors i, i + T, i + 2T, i + 3T (T threads in the grid): every load
// instruction of a warp reads 512 contiguous bytes. The vectors past the last whole round of 4T
// follow one per thread.
__global__ void copy_kernel(const uint4* src, uint4* dst, size_t vectors) {
  const size_t threads = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t first = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t rounds_end = vectors / (4 * threads) * (4 * threads);
  for (size_t i = first + rounds_end; i < vectors; i += threads) dst[i] = src[i];
  for (size_t i = first; i < rounds_end; i += 4 * threads) {
    const uint4 a = src[i];
    const uint4 b = src[i + threads];
    const uint4 c = src[i + 2 * threads];
    const uint4 d = src[i + 3 * threads];
    dst[i] = a;
    dst[i + threads] = b;
    dst[i + 2 * threads] = c;
    dst[i + 3 * threads] = d;
  }
}

}  // namespace

Status launch_copy_kernel(const void* src, void* dst, size_t bytes, cudaStream_t stream, Error* error) {
  constexpr size_t kThreads = 256;
  const size_t vectors = bytes / 16;
  // At most 16 blocks per SM of an H200; fewer when the copy is short (a round of four vectors each).
  const size_t blocks = std::clamp<size_t>((vectors + 4 * kThreads - 1) / (4 * kThreads), 1, 132 * 16);
  copy_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(static_cast<const uint4*>(src),
                                                                      static_cast<uint4*>(dst), vectors);
  QSA_CUDA_TRY(cudaGetLastError(), error);
  return Status::kOk;
}

Status launch_baseline_step_update(const cuda::StepUpdateDeviceArgs& a, cudaStream_t stream, Error* error) {
  const size_t shared = 2 * static_cast<size_t>(a.head_dim) * sizeof(float);
  const int64_t items = a.num_work_rows();
  if (items > 0) pool_kernel<<<static_cast<unsigned>(items), a.head_dim, shared, stream>>>(a);
  commit_kernel<<<a.num_requests, 128, 0, stream>>>(a);
  const int64_t units = static_cast<int64_t>(a.num_tokens) * a.num_heads;
  if (units > 0) q_kernel<<<static_cast<unsigned>(units), a.head_dim, shared, stream>>>(a);
  QSA_CUDA_TRY(cudaGetLastError(), error);
  return Status::kOk;
}

}  // namespace qsa::timing
