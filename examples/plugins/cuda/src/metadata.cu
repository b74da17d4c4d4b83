// SPEC 2 on the device: one thread per row for the per-row outputs, one thread for the k-work
// items and the batch split (a few requests; nothing to gain from more).

#include "kernels.hpp"

namespace example_cuda {
namespace {

struct Table {  // an int32 [rows, cols] table with element strides
  const int32_t* data;
  int64_t cols, row_stride, col_stride;
  __device__ int32_t at(int64_t r, int64_t c) const { return data[r * row_stride + c * col_stride]; }
};

Table table_of(const DLTensor& t) {
  return Table{static_cast<const int32_t*>(t.data), t.shape[1], t.strides ? t.strides[0] : t.shape[1],
               t.strides ? t.strides[1] : 1};
}

__global__ void metadata_rows_kernel(QsaPluginMetadataArgs a, Table table, int64_t num_requests) {
  const int64_t t = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (t >= a.batch.num_actual_tokens) return;
  const auto* qsl = static_cast<const int32_t*>(a.batch.query_start_loc.data);
  const auto* seq_lens = static_cast<const int32_t*>(a.batch.seq_lens.data);
  const auto* common = static_cast<const int64_t*>(a.batch.common_slot_mapping.data);
  auto* token_to_req = static_cast<int32_t*>(a.out.token_to_req.data);
  auto* positions = static_cast<int64_t*>(a.out.logical_positions.data);
  auto* visible = static_cast<int32_t*>(a.out.visible_blocks.data);
  auto* slots = static_cast<int64_t*>(a.out.slot_mapping.data);
  token_to_req[t] = 0;
  positions[t] = -1;
  visible[t] = 0;
  slots[t] = -1;
  if (t >= qsl[num_requests]) return;  // padding row
  int64_t lo = 0, hi = num_requests;   // the largest j with qsl[j] <= t
  while (hi - lo > 1) {
    const int64_t mid = (lo + hi) / 2;
    if (qsl[mid] <= t)
      lo = mid;
    else
      hi = mid;
  }
  const int64_t j = lo, e = seq_lens[j], end = qsl[j + 1];
  const int64_t p = e - (end - qsl[j]) + (t - qsl[j]);
  const int64_t cb = a.compress_ratio;
  token_to_req[t] = static_cast<int32_t>(j);
  positions[t] = p;
  visible[t] = static_cast<int32_t>(max(int64_t{0}, min((p + 1) / cb, e / cb)));
  int64_t slot = -1;
  if (a.cache_kind == QSA_PLUGIN_KIND_ID_PASSTHROUGH) {
    slot = common[t] < 0 ? -1 : common[t];
  } else if (a.cache_kind == QSA_PLUGIN_KIND_ID_RING) {
    const int64_t r = a.ring_capacity;
    if (p >= 0 && t + r >= end && table.cols > 0 && table.at(j, 0) >= 0) slot = table.at(j, 0) * r + p % r;
  } else if (p >= 0 && (p + 1) % cb == 0) {
    const int64_t g = p / cb, s = a.storage_block_size;
    if (g / s < table.cols && table.at(j, g / s) >= 0 && common[t] >= 0) slot = table.at(j, g / s) * s + g % s;
  }
  slots[t] = slot;
}

// k-work items (compressed kind) and the batch split, serially. The split goes to `split`.
__global__ void metadata_requests_kernel(QsaPluginMetadataArgs a, int64_t num_requests, int64_t k_rows,
                                         QsaBatchSplit* split, Variant variant) {
  const auto* qsl = static_cast<const int32_t*>(a.batch.query_start_loc.data);
  const auto* seq_lens = static_cast<const int32_t*>(a.batch.seq_lens.data);
  auto q = [&](int64_t j) { return int64_t{qsl[j + 1]} - qsl[j]; };
  if (a.cache_kind == QSA_PLUGIN_KIND_ID_COMPRESSED) {
    auto* work = static_cast<int32_t*>(a.out.k_work_metadata.data);
    const int64_t c = a.compress_ratio;
    int64_t row = 0;
    for (int64_t j = 0; j < num_requests; ++j) {
      const int64_t e = seq_lens[j];
      const int64_t items = q(j) == 0 ? 0 : max(int64_t{1}, e / c - (e - q(j)) / c);
      for (int64_t w = 0; w < items && row < k_rows; ++w, ++row) {
        work[2 * row] = static_cast<int32_t>(j);
        work[2 * row + 1] = static_cast<int32_t>(w);
      }
    }
    for (; row < k_rows; ++row) work[2 * row] = work[2 * row + 1] = -1;
  }
  QsaBatchSplit s{};
  const int64_t threshold = a.batch.reorder_batch_threshold, q0 = num_requests > 0 ? q(0) : 0;
  int64_t first_other = num_requests;
  bool uniform = true;
  for (int64_t j = 0; j < num_requests; ++j) {
    s.max_query_len = max(s.max_query_len, q(j));
    s.max_seq_len = max(s.max_seq_len, int64_t{seq_lens[j]});
    const bool padded = q(j) == 0 && variant != Variant::kSplitIgnoresPadding;
    if (q(j) != q0 && !padded) uniform = false;
    if (q(j) != q0 && first_other == num_requests) first_other = j;
  }
  if (s.max_query_len <= threshold && threshold <= 1) {
    s.num_decodes = num_requests;
    s.num_decode_tokens = a.batch.num_actual_tokens;
  } else if (q0 > threshold) {
    s.num_decodes = 0;
  } else if (uniform) {
    s.num_decodes = num_requests;
    s.num_decode_tokens = a.batch.num_actual_tokens;
  } else {
    s.num_decodes = first_other;
    s.num_decode_tokens = qsl[first_other];
  }
  s.num_prefills = num_requests - s.num_decodes;
  s.num_prefill_tokens = a.batch.num_actual_tokens - s.num_decode_tokens;
  for (int64_t j = 0; j < s.num_decodes && s.decode_query_len == 0; ++j) s.decode_query_len = q(j);
  *split = s;
}

}  // namespace

cudaError_t launch_metadata(const QsaPluginMetadataArgs& a, Variant variant, cudaStream_t stream) {
  const int64_t n = a.batch.num_actual_tokens, num_requests = a.batch.seq_lens.shape[0];
  if (n > 0)
    metadata_rows_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(a, table_of(a.block_table),
                                                                                     num_requests);
  QsaBatchSplit* split = nullptr;
  cudaError_t err = cudaMallocAsync(&split, sizeof *split, stream);
  if (err != cudaSuccess) return err;
  metadata_requests_kernel<<<1, 1, 0, stream>>>(a, num_requests, a.out.k_work_metadata.shape[0], split, variant);
  err = cudaMemcpyAsync(a.out.split, split, sizeof *split, cudaMemcpyDeviceToHost, stream);
  cudaFreeAsync(split, stream);
  if (err != cudaSuccess) return err;
  err = cudaStreamSynchronize(stream);  // the split is host memory: it must be there on return
  return err != cudaSuccess ? err : cudaGetLastError();
}

}  // namespace example_cuda
