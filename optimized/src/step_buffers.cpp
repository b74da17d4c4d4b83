#include "qsa/cuda/step_buffers.hpp"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cache_mirror.hpp"
#include "device_buffer.hpp"

namespace qsa::cuda {

struct StepBuffers::Arrays {
  DeviceBuffer ring_block_table;
  DeviceBuffer keys;
  DeviceBuffer queries;
  DeviceBuffer positions;
  DeviceBuffer cos_sin;
  // The shared table last uploaded (not re-sent while it is the config's). Held, not just its
  // address: a freed table's address can come back for another configuration's table.
  std::shared_ptr<const std::vector<Bf16>> cos_sin_source;
  DeviceBuffer w_k;
  DeviceBuffer w_q;
  // The caches stay on the device between steps; a step moves the rows that changed (cache_mirror.hpp).
  CacheMirror ring;
  CacheMirror compressed;
  DeviceBuffer q_out;
  DeviceBuffer status;
  PinnedBuffer host_out;  // q_out, then the status word: the step's outputs come down asynchronously
};

StepBuffers::StepBuffers() : arrays_(std::make_unique<Arrays>()) {}
StepBuffers::~StepBuffers() = default;

namespace {

template <typename T>
size_t bytes_of(const std::vector<T>& v) {
  return v.size() * sizeof(T);
}

// One block of the cache, at least 4 KiB: a kernel that addresses the block after the last one
// (a missing bound check) writes here, where download() sees it.
size_t slack_for(const CacheLayout& layout) {
  const auto block = static_cast<size_t>(layout.block_stride * layout.element_bytes);
  return block > 4096 ? block : 4096;
}

}  // namespace

Status StepBuffers::upload(const StepInput& in, const StepCaches& caches, const MetadataDeviceArgs& m,
                           cudaStream_t stream, StepUpdateDeviceArgs* args, Error* error) {
  Arrays& a = *arrays_;
  const StepConfig& c = in.config;
  Status s = Status::kOk;
  if ((s = a.ring_block_table.upload(in.ring_block_table.storage.data(), bytes_of(in.ring_block_table.storage), stream,
                                     "cudaMalloc(ring_block_table)", error)) != Status::kOk)
    return s;
  if ((s = a.keys.upload(in.keys.data(), bytes_of(in.keys), stream, "cudaMalloc(keys)", error)) != Status::kOk)
    return s;
  if ((s = a.queries.upload(in.queries.data(), bytes_of(in.queries), stream, "cudaMalloc(queries)", error)) !=
      Status::kOk)
    return s;
  if ((s = a.positions.upload(in.positions.data(), bytes_of(in.positions), stream, "cudaMalloc(positions)", error)) !=
      Status::kOk)
    return s;
  if (a.cos_sin_source != c.cos_sin) {
    if ((s = a.cos_sin.upload(c.cos_sin_data(), c.cos_sin_size() * sizeof(Bf16), stream, "cudaMalloc(cos_sin)",
                              error)) != Status::kOk)
      return s;
    a.cos_sin_source = c.cos_sin;
  }
  if ((s = a.w_k.upload(c.w_k.data(), bytes_of(c.w_k), stream, "cudaMalloc(w_k)", error)) != Status::kOk) return s;
  if ((s = a.w_q.upload(c.w_q.data(), bytes_of(c.w_q), stream, "cudaMalloc(w_q)", error)) != Status::kOk) return s;
  if ((s = a.ring.upload(caches.ring, slack_for(caches.ring.layout), stream, "cudaMalloc(ring)", error)) !=
      Status::kOk)
    return s;
  if ((s = a.compressed.upload(caches.compressed, slack_for(caches.compressed.layout), stream,
                               "cudaMalloc(compressed)", error)) != Status::kOk)
    return s;
  const size_t q_out_bytes = in.queries.size() * static_cast<size_t>(element_bytes(c.store_dtype));
  if ((s = a.q_out.reserve(q_out_bytes, "cudaMalloc(q_out)", error)) != Status::kOk) return s;
  if ((s = a.status.reserve(sizeof(int32_t), "cudaMalloc(status)", error)) != Status::kOk) return s;
  QSA_CUDA_TRY(cudaMemsetAsync(a.q_out.as<void>(), kPoisonByte, q_out_bytes, stream), error);
  QSA_CUDA_TRY(cudaMemsetAsync(a.status.as<void>(), 0, sizeof(int32_t), stream), error);

  StepUpdateDeviceArgs d;
  d.query_start_loc = m.query_start_loc;
  d.seq_lens = m.seq_lens;
  d.common_slot_mapping = m.common_slot_mapping;
  d.block_table = m.block_table;
  d.block_table_row_stride = m.block_table_row_stride;
  d.block_table_col_stride = m.block_table_col_stride;
  d.block_table_cols = m.block_table_cols;
  d.ring_block_table = a.ring_block_table.as<int32_t>();
  d.ring_block_table_row_stride = in.ring_block_table.row_stride;
  d.ring_block_table_col_stride = in.ring_block_table.col_stride;
  d.ring_block_table_cols = static_cast<int32_t>(in.ring_block_table.cols);
  d.k_work_metadata = m.k_work_metadata;
  d.num_tokens = m.num_tokens;
  d.num_requests = m.num_requests;
  d.set_config(c);
  d.keys = a.keys.as<uint16_t>();
  d.queries = a.queries.as<uint16_t>();
  d.positions = a.positions.as<int64_t>();
  d.position_axes = in.position_axes;
  d.cos_sin = a.cos_sin.as<uint16_t>();
  d.w_k = a.w_k.as<uint16_t>();
  d.w_q = a.w_q.as<uint16_t>();
  d.ring = static_cast<uint16_t*>(a.ring.device());
  d.ring_num_blocks = caches.ring.layout.num_blocks;
  d.ring_block_stride = caches.ring.layout.block_stride;
  d.ring_row_stride = caches.ring.layout.row_stride;
  d.compressed = a.compressed.device();
  d.compressed_num_blocks = caches.compressed.layout.num_blocks;
  d.compressed_block_stride = caches.compressed.layout.block_stride;
  d.compressed_row_stride = caches.compressed.layout.row_stride;
  d.q_out = a.q_out.as<void>();
  d.status = a.status.as<int32_t>();
  *args = d;
  return Status::kOk;
}

// Two synchronizations of the backend's own stream, none of the device: the first brings the
// number of changed chunks of each cache (and the outputs), the second the chunks themselves.
Status StepBuffers::download(const StepUpdateDeviceArgs& args, cudaStream_t stream, StepCaches* caches,
                             StepOutput* output, Error* error) {
  Arrays& a = *arrays_;
  const size_t q_out_bytes = static_cast<size_t>(args.num_tokens) * static_cast<size_t>(args.num_heads) *
                             static_cast<size_t>(args.head_dim) *
                             static_cast<size_t>(args.store_dtype == StoreDtype::kBf16 ? 2 : 1);
  const size_t status_at = (q_out_bytes + 7) / 8 * 8;
  if (Status s = a.host_out.reserve(status_at + sizeof(int32_t), "cudaMallocHost(q_out)", error); s != Status::kOk)
    return s;
  if (Status s = a.ring.find_changes(stream, error); s != Status::kOk) return s;
  if (Status s = a.compressed.find_changes(stream, error); s != Status::kOk) return s;
  if (q_out_bytes > 0)
    QSA_CUDA_TRY(
        cudaMemcpyAsync(a.host_out.as<void>(), a.q_out.as<void>(), q_out_bytes, cudaMemcpyDeviceToHost, stream),
        error);
  QSA_CUDA_TRY(cudaMemcpyAsync(a.host_out.as<uint8_t>() + status_at, a.status.as<void>(), sizeof(int32_t),
                               cudaMemcpyDeviceToHost, stream),
               error);
  QSA_CUDA_TRY(cudaStreamSynchronize(stream), error);
  if (Status s = a.ring.queue_changes(stream, error); s != Status::kOk) return s;
  if (Status s = a.compressed.queue_changes(stream, error); s != Status::kOk) return s;
  output->q_out.resize(q_out_bytes);
  if (q_out_bytes > 0) std::memcpy(output->q_out.data(), a.host_out.as<void>(), q_out_bytes);
  int32_t status = 0;
  std::memcpy(&status, a.host_out.as<uint8_t>() + status_at, sizeof status);
  QSA_CUDA_TRY(cudaStreamSynchronize(stream), error);
  // Both caches come back before a write past either is reported, as the whole caches did.
  const Status ring = a.ring.collect(&caches->ring, "ring", error);
  Error compressed_error;
  const Status compressed = a.compressed.collect(&caches->compressed, "compressed", &compressed_error);
  if (ring != Status::kOk) return ring;
  if (compressed != Status::kOk) {
    if (error != nullptr) *error = compressed_error;
    return compressed;
  }
  output->step_status = (status & 1) != 0 ? StepStatus::kPositionOutOfRange : StepStatus::kOk;
  return Status::kOk;
}

}  // namespace qsa::cuda
