#include "qsa/cuda/step_buffers.hpp"

#include <memory>
#include <string>
#include <vector>

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
  DeviceBuffer ring;
  DeviceBuffer compressed;
  DeviceBuffer q_out;
  DeviceBuffer status;
  size_t ring_slack = 0;  // poisoned bytes after each cache: a write past the cache shows there
  size_t compressed_slack = 0;
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

// Copies a cache to the device followed by its poisoned slack.
Status upload_cache(DeviceBuffer& buffer, const CacheBuffer& cache, size_t slack, cudaStream_t stream, const char* what,
                    Error* error) {
  if (Status s = buffer.reserve(cache.bytes.size() + slack, what, error); s != Status::kOk) return s;
  if (!cache.bytes.empty())
    QSA_CUDA_TRY(
        cudaMemcpyAsync(buffer.as<void>(), cache.bytes.data(), cache.bytes.size(), cudaMemcpyHostToDevice, stream),
        error);
  QSA_CUDA_TRY(cudaMemsetAsync(buffer.as<uint8_t>() + cache.bytes.size(), kPoisonByte, slack, stream), error);
  return Status::kOk;
}

// kInternalError when a kernel wrote into the slack after a cache.
Status check_slack(const DeviceBuffer& buffer, size_t cache_bytes, size_t slack, cudaStream_t stream, const char* name,
                   Error* error) {
  std::vector<uint8_t> bytes(slack);
  QSA_CUDA_TRY(cudaMemcpyAsync(bytes.data(), buffer.as<uint8_t>() + cache_bytes, slack, cudaMemcpyDeviceToHost, stream),
               error);
  QSA_CUDA_TRY(cudaStreamSynchronize(stream), error);
  for (size_t i = 0; i < slack; ++i) {
    if (bytes[i] == kPoisonByte) continue;
    if (error != nullptr)
      *error = Error{name, static_cast<int64_t>(i), "write-past-cache",
                     std::string("the kernel wrote ") + std::to_string(i) + " bytes past the end of the " + name +
                         " cache (SPEC 5: a slot past the cache is skipped)"};
    return Status::kInternalError;
  }
  return Status::kOk;
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
  a.ring_slack = slack_for(caches.ring.layout);
  a.compressed_slack = slack_for(caches.compressed.layout);
  if ((s = upload_cache(a.ring, caches.ring, a.ring_slack, stream, "cudaMalloc(ring)", error)) != Status::kOk) return s;
  if ((s = upload_cache(a.compressed, caches.compressed, a.compressed_slack, stream, "cudaMalloc(compressed)",
                        error)) != Status::kOk)
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
  d.ring = a.ring.as<uint16_t>();
  d.ring_num_blocks = caches.ring.layout.num_blocks;
  d.ring_block_stride = caches.ring.layout.block_stride;
  d.ring_row_stride = caches.ring.layout.row_stride;
  d.compressed = a.compressed.as<void>();
  d.compressed_num_blocks = caches.compressed.layout.num_blocks;
  d.compressed_block_stride = caches.compressed.layout.block_stride;
  d.compressed_row_stride = caches.compressed.layout.row_stride;
  d.q_out = a.q_out.as<void>();
  d.status = a.status.as<int32_t>();
  *args = d;
  return Status::kOk;
}

Status StepBuffers::download(const StepUpdateDeviceArgs& args, cudaStream_t stream, StepCaches* caches,
                             StepOutput* output, Error* error) {
  Arrays& a = *arrays_;
  const size_t q_out_bytes = static_cast<size_t>(args.num_tokens) * static_cast<size_t>(args.num_heads) *
                             static_cast<size_t>(args.head_dim) *
                             static_cast<size_t>(args.store_dtype == StoreDtype::kBf16 ? 2 : 1);
  output->q_out.resize(q_out_bytes);
  int32_t status = 0;
  QSA_CUDA_TRY(cudaMemcpyAsync(caches->ring.bytes.data(), a.ring.as<void>(), caches->ring.bytes.size(),
                               cudaMemcpyDeviceToHost, stream),
               error);
  QSA_CUDA_TRY(cudaMemcpyAsync(caches->compressed.bytes.data(), a.compressed.as<void>(),
                               caches->compressed.bytes.size(), cudaMemcpyDeviceToHost, stream),
               error);
  QSA_CUDA_TRY(cudaMemcpyAsync(output->q_out.data(), a.q_out.as<void>(), q_out_bytes, cudaMemcpyDeviceToHost, stream),
               error);
  QSA_CUDA_TRY(cudaMemcpyAsync(&status, a.status.as<void>(), sizeof status, cudaMemcpyDeviceToHost, stream), error);
  QSA_CUDA_TRY(cudaStreamSynchronize(stream), error);
  if (Status s = check_slack(a.ring, caches->ring.bytes.size(), a.ring_slack, stream, "ring", error); s != Status::kOk)
    return s;
  if (Status s =
          check_slack(a.compressed, caches->compressed.bytes.size(), a.compressed_slack, stream, "compressed", error);
      s != Status::kOk)
    return s;
  output->step_status = (status & 1) != 0 ? StepStatus::kPositionOutOfRange : StepStatus::kOk;
  return Status::kOk;
}

}  // namespace qsa::cuda
