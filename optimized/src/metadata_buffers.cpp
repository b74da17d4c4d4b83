#include "qsa/cuda/metadata_buffers.hpp"

#include <algorithm>
#include <string>

#include "qsa/cuda/cuda_check.hpp"

namespace qsa::cuda {
namespace {

template <typename T>
Status allocate(T** pointer, int64_t elements, const char* what, Error* error) {
  const auto bytes = static_cast<size_t>(std::max<int64_t>(elements, 1)) * sizeof(T);
  const cudaError_t code = cudaMalloc(reinterpret_cast<void**>(pointer), bytes);
  if (code != cudaSuccess) return device_error(code, what, error);
  return Status::kOk;
}

int64_t max_work_rows(const MetadataBuffers::Capacity& c) { return c.max_tokens / 2 + c.max_requests; }

}  // namespace

Status MetadataBuffers::create(const Capacity& capacity, cudaStream_t stream, std::unique_ptr<MetadataBuffers>* buffers,
                               Error* error) {
  buffers->reset();
  if (capacity.max_tokens < 0 || capacity.max_tokens > kMaxTokens)
    return invalid(error, "max_tokens", -1, "out-of-range", "must be in [0, 2^24]");
  if (capacity.max_requests < 1 || capacity.max_requests > kMaxMetadataRequests)
    return invalid(error, "max_requests", -1, "out-of-range",
                   "must be in [1, " + std::to_string(kMaxMetadataRequests) + "] (SPEC 1.3)");
  if (capacity.max_table_elements < 0 || capacity.max_table_elements > (int64_t{1} << 33))
    return invalid(error, "max_table_elements", -1, "out-of-range", "must be in [0, 2^33]");
  std::unique_ptr<MetadataBuffers> b(new MetadataBuffers());
  b->capacity_ = capacity;
  const int64_t n = capacity.max_tokens;
  const int64_t table = 2 * capacity.max_table_elements + 1;
  Status s = Status::kOk;
  if ((s = allocate(&b->query_start_loc_, capacity.max_requests + 1, "cudaMalloc(query_start_loc)", error)) !=
      Status::kOk)
    return s;
  if ((s = allocate(&b->seq_lens_, capacity.max_requests, "cudaMalloc(seq_lens)", error)) != Status::kOk) return s;
  if ((s = allocate(&b->common_slot_mapping_, n, "cudaMalloc(common_slot_mapping)", error)) != Status::kOk) return s;
  if ((s = allocate(&b->block_table_, table, "cudaMalloc(block_table)", error)) != Status::kOk) return s;
  if ((s = allocate(&b->token_to_req_, n, "cudaMalloc(token_to_req)", error)) != Status::kOk) return s;
  if ((s = allocate(&b->logical_positions_, n, "cudaMalloc(logical_positions)", error)) != Status::kOk) return s;
  if ((s = allocate(&b->visible_blocks_, n, "cudaMalloc(visible_blocks)", error)) != Status::kOk) return s;
  if ((s = allocate(&b->slot_mapping_, n, "cudaMalloc(slot_mapping)", error)) != Status::kOk) return s;
  if ((s = allocate(&b->k_work_metadata_, 2 * max_work_rows(capacity), "cudaMalloc(k_work_metadata)", error)) !=
      Status::kOk)
    return s;
  if (const int64_t workspace = metadata_workspace_elements(capacity.max_requests); workspace > 0)
    if ((s = allocate(&b->request_workspace_, workspace, "cudaMalloc(request_workspace)", error)) != Status::kOk)
      return s;
  QSA_CUDA_TRY(cudaMemsetAsync(b->block_table_, 0, static_cast<size_t>(table) * sizeof(int32_t), stream), error);
  if ((s = prepare_metadata_launch(error)) != Status::kOk) return s;
  *buffers = std::move(b);
  return Status::kOk;
}

MetadataBuffers::~MetadataBuffers() {
  // Errors on free cannot be reported from a destructor; the pointers are ours.
  cudaFree(query_start_loc_);
  cudaFree(seq_lens_);
  cudaFree(common_slot_mapping_);
  cudaFree(block_table_);
  cudaFree(token_to_req_);
  cudaFree(logical_positions_);
  cudaFree(visible_blocks_);
  cudaFree(slot_mapping_);
  cudaFree(k_work_metadata_);
  cudaFree(request_workspace_);
}

bool MetadataBuffers::fits(const MetadataInput& input) const {
  const int64_t k = k_work_rows(input);
  return input.batch.num_actual_tokens <= capacity_.max_tokens &&
         input.batch.num_requests() <= capacity_.max_requests &&
         static_cast<int64_t>(input.block_table.storage.size()) <= capacity_.max_table_elements &&
         k <= max_work_rows(capacity_);
}

Status MetadataBuffers::upload(const MetadataInput& input, cudaStream_t stream, MetadataDeviceArgs* args,
                               Error* error) {
  if (!fits(input)) return invalid(error, "input", -1, "too-large", "the input does not fit these device buffers");
  const Batch& batch = input.batch;
  const int64_t n = batch.num_actual_tokens;
  const int64_t nr = batch.num_requests();
  host_query_start_loc_.assign(batch.query_start_loc.begin(), batch.query_start_loc.end());  // validated: fits int32
  host_seq_lens_.assign(batch.seq_lens.begin(), batch.seq_lens.end());
  QSA_CUDA_TRY(cudaMemcpyAsync(query_start_loc_, host_query_start_loc_.data(),
                               static_cast<size_t>(nr + 1) * sizeof(int32_t), cudaMemcpyHostToDevice, stream),
               error);
  QSA_CUDA_TRY(cudaMemcpyAsync(seq_lens_, host_seq_lens_.data(), static_cast<size_t>(nr) * sizeof(int32_t),
                               cudaMemcpyHostToDevice, stream),
               error);
  const auto common = static_cast<size_t>(std::min<int64_t>(n, static_cast<int64_t>(batch.common_slot_mapping.size())));
  if (common > 0)
    QSA_CUDA_TRY(cudaMemcpyAsync(common_slot_mapping_, batch.common_slot_mapping.data(), common * sizeof(int64_t),
                                 cudaMemcpyHostToDevice, stream),
                 error);
  const BlockTable& table = input.block_table;
  if (!table.storage.empty())
    QSA_CUDA_TRY(cudaMemcpyAsync(block_table_, table.storage.data(), table.storage.size() * sizeof(int32_t),
                                 cudaMemcpyHostToDevice, stream),
                 error);

  MetadataDeviceArgs a;
  a.query_start_loc = query_start_loc_;
  a.seq_lens = seq_lens_;
  a.common_slot_mapping = common_slot_mapping_;
  a.block_table = block_table_;
  a.block_table_row_stride = table.row_stride;
  a.block_table_col_stride = table.col_stride;
  a.block_table_cols = static_cast<int32_t>(table.cols);
  a.num_tokens = static_cast<int32_t>(n);
  a.num_requests = static_cast<int32_t>(nr);
  a.set_cache(input.cache);
  a.token_to_req = token_to_req_;
  a.logical_positions = logical_positions_;
  a.visible_blocks = visible_blocks_;
  a.slot_mapping = slot_mapping_;
  a.k_work_metadata = k_work_metadata_;
  a.request_workspace = request_workspace_;
  *args = a;
  return Status::kOk;
}

Status MetadataBuffers::poison_outputs(const MetadataDeviceArgs& args, cudaStream_t stream, Error* error) const {
  const auto n = static_cast<size_t>(args.num_tokens);
  const auto k = static_cast<size_t>(args.num_work_rows());
  QSA_CUDA_TRY(cudaMemsetAsync(args.token_to_req, 0xA5, n * sizeof(int32_t), stream), error);
  QSA_CUDA_TRY(cudaMemsetAsync(args.logical_positions, 0xA5, n * sizeof(int64_t), stream), error);
  QSA_CUDA_TRY(cudaMemsetAsync(args.visible_blocks, 0xA5, n * sizeof(int32_t), stream), error);
  QSA_CUDA_TRY(cudaMemsetAsync(args.slot_mapping, 0xA5, n * sizeof(int64_t), stream), error);
  if (k > 0) QSA_CUDA_TRY(cudaMemsetAsync(args.k_work_metadata, 0xA5, 2 * k * sizeof(int32_t), stream), error);
  return Status::kOk;
}

Status MetadataBuffers::download(const MetadataDeviceArgs& args, cudaStream_t stream, MetadataOutput* output,
                                 Error* error) const {
  const auto n = static_cast<size_t>(args.num_tokens);
  const auto k = static_cast<size_t>(args.num_work_rows());
  output->token_to_req.resize(n);
  output->logical_positions.resize(n);
  output->visible_blocks.resize(n);
  output->slot_mapping.resize(n);
  output->k_work_metadata.resize(2 * k);
  if (n > 0) {
    QSA_CUDA_TRY(cudaMemcpyAsync(output->token_to_req.data(), args.token_to_req, n * sizeof(int32_t),
                                 cudaMemcpyDeviceToHost, stream),
                 error);
    QSA_CUDA_TRY(cudaMemcpyAsync(output->logical_positions.data(), args.logical_positions, n * sizeof(int64_t),
                                 cudaMemcpyDeviceToHost, stream),
                 error);
    QSA_CUDA_TRY(cudaMemcpyAsync(output->visible_blocks.data(), args.visible_blocks, n * sizeof(int32_t),
                                 cudaMemcpyDeviceToHost, stream),
                 error);
    QSA_CUDA_TRY(cudaMemcpyAsync(output->slot_mapping.data(), args.slot_mapping, n * sizeof(int64_t),
                                 cudaMemcpyDeviceToHost, stream),
                 error);
  }
  if (k > 0)
    QSA_CUDA_TRY(cudaMemcpyAsync(output->k_work_metadata.data(), args.k_work_metadata, 2 * k * sizeof(int32_t),
                                 cudaMemcpyDeviceToHost, stream),
                 error);
  QSA_CUDA_TRY(cudaStreamSynchronize(stream), error);
  return Status::kOk;
}

}  // namespace qsa::cuda
