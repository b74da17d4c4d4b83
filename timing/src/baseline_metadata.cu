// The benchmarks' baseline and floor kernels (see baseline_metadata.hpp).

#include <cuda_runtime.h>

#include <vector>

#include "qsa/cuda/cuda_check.hpp"
#include "qsa/cuda/detail/kernel_variants.cuh"
#include "qsa/timing/baseline_metadata.hpp"

namespace qsa::timing {
namespace {

constexpr int kThreads = 256;

struct BaselineParams {
  const int32_t* query_start_loc;      // [num_requests + 1]
  const int32_t* seq_lens;             // [num_requests]
  const int64_t* common_slot_mapping;  // [>= num_tokens]
  const int32_t* block_table;          // (r, c) at r * row_stride + c * col_stride
  int64_t row_stride;
  int64_t col_stride;
  int32_t cols;
  int32_t num_tokens;
  int32_t num_requests;
  int32_t num_work_rows;
  int32_t kind;  // 0 compressed, 1 ring, 2 passthrough
  int32_t compress_ratio;
  int32_t builder_ratio;
  int32_t storage_block_size;
  int32_t ring_capacity;
  int32_t* token_to_req;       // [num_tokens]
  int64_t* logical_positions;  // [num_tokens]
  int32_t* visible_blocks;     // [num_tokens]
  int64_t* slot_mapping;       // [num_tokens]
  int32_t* k_work_metadata;    // [num_work_rows][2]
};

__global__ void __launch_bounds__(kThreads) metadata_token_search_kernel(const BaselineParams p) {
  const int32_t t = static_cast<int32_t>(blockIdx.x * blockDim.x + threadIdx.x);
  if (t >= p.num_tokens) return;
  const int32_t m = p.query_start_loc[p.num_requests];
  if (t >= m) {
    p.token_to_req[t] = 0;
    p.logical_positions[t] = -1;
    p.visible_blocks[t] = 0;
    p.slot_mapping[t] = -1;
    return;
  }
  int32_t lo = 0;
  int32_t hi = p.num_requests - 1;
  while (lo < hi) {
    const int32_t mid = (lo + hi + 1) / 2;
    if (p.query_start_loc[mid] <= t)
      lo = mid;
    else
      hi = mid - 1;
  }
  const int32_t j = lo;
  const int32_t begin = p.query_start_loc[j];
  const int32_t end = p.query_start_loc[j + 1];
  const int32_t seq_len = p.seq_lens[j];
  const int32_t pos = seq_len - (end - begin) + (t - begin);
  int64_t slot = -1;
  if (p.kind == 0) {
    const int32_t c = p.compress_ratio;
    if ((pos + 1) % c == 0) {
      const int32_t g = pos / c;
      const int32_t logical_block = g / p.storage_block_size;
      if (logical_block < p.cols) {
        const int32_t block = p.block_table[j * p.row_stride + logical_block * p.col_stride];
        if (block >= 0 && p.common_slot_mapping[t] >= 0)
          slot = static_cast<int64_t>(block) * p.storage_block_size + g % p.storage_block_size;
      }
    }
  } else if (p.kind == 1) {
    if (t + p.ring_capacity >= end && p.cols > 0) {
      const int32_t block = p.block_table[j * p.row_stride];
      if (block >= 0) slot = static_cast<int64_t>(block) * p.ring_capacity + pos % p.ring_capacity;
    }
  } else {
    const int64_t common = p.common_slot_mapping[t];
    slot = common >= 0 ? common : -1;
  }
  p.token_to_req[t] = j;
  p.logical_positions[t] = pos;
  p.visible_blocks[t] = max(0, min((pos + 1) / p.builder_ratio, seq_len / p.builder_ratio));
  p.slot_mapping[t] = slot;
}

__global__ void __launch_bounds__(kThreads) work_serial_prefix_kernel(const BaselineParams p) {
  __shared__ int32_t scan[kThreads];
  const int tid = static_cast<int>(threadIdx.x);
  int32_t carry = 0;
  for (int32_t base = 0; base < p.num_requests; base += kThreads) {
    const int32_t j = base + tid;
    int32_t n = 0;
    if (j < p.num_requests) {
      const int32_t q = p.query_start_loc[j + 1] - p.query_start_loc[j];
      const int32_t e = p.seq_lens[j];
      n = static_cast<int32_t>(qsa::k_work_items(q, e, p.compress_ratio));
    }
    scan[tid] = n;
    __syncthreads();
    for (int d = 1; d < kThreads; d <<= 1) {  // Hillis-Steele inclusive scan
      const int32_t add = tid >= d ? scan[tid - d] : 0;
      __syncthreads();
      scan[tid] += add;
      __syncthreads();
    }
    const int32_t first = carry + scan[tid] - n;
    for (int32_t w = 0; w < n && first + w < p.num_work_rows; ++w) {
      p.k_work_metadata[2 * (first + w)] = j;
      p.k_work_metadata[2 * (first + w) + 1] = w;
    }
    carry += scan[kThreads - 1];
    __syncthreads();
  }
  for (int32_t r = carry + tid; r < p.num_work_rows; r += kThreads) {
    p.k_work_metadata[2 * r] = -1;
    p.k_work_metadata[2 * r + 1] = -1;
  }
}

__global__ void empty_kernel() {}

constexpr int kLadderEntries = 1 << 16;
constexpr int kLadderMaxBlocks = 256;

// As our kernels do under PDL: the wait before the first load, then the trigger (no-ops when the
// launch is plain).
__global__ void __launch_bounds__(kThreads) dependent_loads_kernel(const int32_t* table, int32_t* out, int depth) {
  const int32_t thread = static_cast<int32_t>(blockIdx.x * blockDim.x + threadIdx.x);
  cuda::detail::wait_for_previous_grid();
  cuda::detail::allow_next_grid();
  int32_t index = thread;
  for (int d = 0; d < depth; ++d) index = __ldg(table + index);
  out[thread] = index;
}

}  // namespace

DependentLoadLadder::~DependentLoadLadder() {
  cudaFree(table_);
  cudaFree(out_);
}

Status DependentLoadLadder::create(Error* error) {
  std::vector<int32_t> next(kLadderEntries);
  for (int i = 0; i < kLadderEntries; ++i)
    next[i] = static_cast<int32_t>((static_cast<int64_t>(i) * 40503 + 977) % kLadderEntries);
  QSA_CUDA_TRY(cudaMalloc(reinterpret_cast<void**>(&table_), kLadderEntries * sizeof(int32_t)), error);
  QSA_CUDA_TRY(cudaMalloc(reinterpret_cast<void**>(&out_), kLadderMaxBlocks * kThreads * sizeof(int32_t)), error);
  QSA_CUDA_TRY(cudaMemcpy(table_, next.data(), next.size() * sizeof(int32_t), cudaMemcpyHostToDevice), error);
  return Status::kOk;
}

Status DependentLoadLadder::launch(cudaStream_t stream, int depth, int blocks, bool programmatic, Error* error) const {
  if (blocks < 1 || blocks > kLadderMaxBlocks) return invalid(error, "blocks", -1, "out-of-range", "1..256 blocks");
  QSA_CUDA_TRY(cuda::detail::launch_kernel(dependent_loads_kernel, dim3(static_cast<unsigned>(blocks)), dim3(kThreads),
                                           0, stream, programmatic, table_, out_, depth),
               error);
  return Status::kOk;
}

Status launch_baseline_metadata(const cuda::MetadataDeviceArgs& args, cudaStream_t stream, Error* error) {
  BaselineParams p{};
  p.query_start_loc = args.query_start_loc;
  p.seq_lens = args.seq_lens;
  p.common_slot_mapping = args.common_slot_mapping;
  p.block_table = args.block_table;
  p.row_stride = args.block_table_row_stride;
  p.col_stride = args.block_table_col_stride;
  p.cols = args.block_table_cols;
  p.num_tokens = args.num_tokens;
  p.num_requests = args.num_requests;
  p.num_work_rows = static_cast<int32_t>(args.num_work_rows());
  p.kind = args.kind == CacheKind::kCompressed ? 0 : args.kind == CacheKind::kRing ? 1 : 2;
  p.compress_ratio = args.compress_ratio;
  p.builder_ratio = args.builder_ratio;
  p.storage_block_size = args.storage_block_size;
  p.ring_capacity = args.ring_capacity;
  p.token_to_req = args.token_to_req;
  p.logical_positions = args.logical_positions;
  p.visible_blocks = args.visible_blocks;
  p.slot_mapping = args.slot_mapping;
  p.k_work_metadata = args.k_work_metadata;
  if (p.num_tokens > 0) {
    metadata_token_search_kernel<<<static_cast<unsigned>((p.num_tokens + kThreads - 1) / kThreads), kThreads, 0,
                                   stream>>>(p);
    QSA_CUDA_TRY(cudaGetLastError(), error);
  }
  if (p.num_work_rows > 0) {
    work_serial_prefix_kernel<<<1, kThreads, 0, stream>>>(p);
    QSA_CUDA_TRY(cudaGetLastError(), error);
  }
  return Status::kOk;
}

Status launch_empty_kernel(cudaStream_t stream, int blocks, Error* error) {
  empty_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>();
  QSA_CUDA_TRY(cudaGetLastError(), error);
  return Status::kOk;
}

}  // namespace qsa::timing
