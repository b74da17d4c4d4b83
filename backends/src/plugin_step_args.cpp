#include "plugin_step_args.hpp"

namespace qsa::backends {

Status upload_batch(PluginMemory& memory, const Batch& batch, PluginMetadataBuffers* b, Error* error) {
  const std::vector<int32_t> qsl = narrow(batch.query_start_loc);
  const std::vector<int32_t> seq_lens = narrow(batch.seq_lens);
  QSA_TRY(b->qsl.allocate_from(memory, qsl.data(), bytes_of(qsl), error));
  QSA_TRY(b->seq_lens.allocate_from(memory, seq_lens.data(), bytes_of(seq_lens), error));
  QSA_TRY(b->common_slots.allocate_from(memory, batch.common_slot_mapping.data(), bytes_of(batch.common_slot_mapping),
                                        error));
  b->batch.num_actual_tokens = batch.num_actual_tokens;
  b->batch.reorder_batch_threshold = batch.reorder_batch_threshold;
  b->batch.query_start_loc = b->qsl.tensor(kDLInt, 32, {static_cast<int64_t>(qsl.size())});
  b->batch.seq_lens = b->seq_lens.tensor(kDLInt, 32, {static_cast<int64_t>(seq_lens.size())});
  b->batch.common_slot_mapping =
      b->common_slots.tensor(kDLInt, 64, {static_cast<int64_t>(batch.common_slot_mapping.size())});
  return Status::kOk;
}

Status upload_table(PluginMemory& memory, const BlockTable& table, PluginBuffer* buffer, DLTensor* tensor,
                    Error* error) {
  QSA_TRY(buffer->allocate_from(memory, table.storage.data(), bytes_of(table.storage), error));
  *tensor = buffer->tensor(kDLInt, 32, {table.rows, table.cols}, {table.row_stride, table.col_stride});
  return Status::kOk;
}

DLTensor cache_tensor(const CacheLayout& l, PluginBuffer* buffer) {
  const bool bytes = l.element_bytes == 1;
  return buffer->tensor(bytes ? kDLUInt : kDLBfloat, bytes ? 8 : 16, {l.num_blocks, l.rows, l.width},
                        {l.block_stride, l.row_stride, 1});
}

DLTensor host_cache_tensor(CacheBuffer& cache, std::array<int64_t, 6>* shape) {
  static uint8_t empty = 0;  // a cache of no bytes still gets a pointer, as a buffer of at least 1 byte did
  const CacheLayout& l = cache.layout;
  *shape = {l.num_blocks, l.rows, l.width, l.block_stride, l.row_stride, 1};
  const bool bytes = l.element_bytes == 1;
  DLTensor t{};
  t.data = cache.bytes.empty() ? &empty : cache.bytes.data();
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = 3;
  t.dtype = DLDataType{static_cast<uint8_t>(bytes ? kDLUInt : kDLBfloat), static_cast<uint8_t>(bytes ? 8 : 16), 1};
  t.shape = shape->data();
  t.strides = shape->data() + 3;
  return t;
}

void fill_step_config(const StepConfig& c, QsaPluginStepArgs* args) {
  args->struct_size = sizeof *args;
  args->store_dtype = c.store_dtype == StoreDtype::kBf16 ? QSA_PLUGIN_STORE_BF16 : QSA_PLUGIN_STORE_FP8_E4M3;
  args->compress_ratio = c.compress_ratio;
  args->storage_block_size = c.storage_block_size;
  args->ring_capacity = c.ring_capacity;
  args->head_dim = c.head_dim;
  args->rotary_dim = c.rotary_dim;
  args->num_heads = c.num_heads;
  args->eps = c.eps;
  args->has_mrope = c.mrope_sections ? 1 : 0;
  for (int i = 0; i < 3 && c.mrope_sections; ++i)
    args->mrope_sections[i] = static_cast<int32_t>((*c.mrope_sections)[i]);
  args->ring_positions = c.ring_positions ? 1 : 0;
  args->max_position = c.max_position;
}

Status upload_step_inputs(PluginMemory& memory, const StepInput& input, PluginStepBuffers* b, QsaPluginStepArgs* args,
                          Error* error) {
  const StepConfig& c = input.config;
  QSA_TRY(upload_batch(memory, input.batch, &b->batch, error));
  args->batch = b->batch.batch;
  QSA_TRY(upload_table(memory, input.block_table, &b->block_table, &args->block_table, error));
  QSA_TRY(upload_table(memory, input.ring_block_table, &b->ring_block_table, &args->ring_block_table, error));
  const int64_t n = input.num_tokens();
  QSA_TRY(b->keys.allocate_from(memory, input.keys.data(), bytes_of(input.keys), error));
  args->keys = b->keys.tensor(kDLBfloat, 16, {n, c.head_dim});
  QSA_TRY(b->queries.allocate_from(memory, input.queries.data(), bytes_of(input.queries), error));
  args->queries = b->queries.tensor(kDLBfloat, 16, {n, c.num_heads, c.head_dim});
  QSA_TRY(b->positions.allocate_from(memory, input.positions.data(), bytes_of(input.positions), error));
  args->positions =
      input.position_axes == 3 ? b->positions.tensor(kDLInt, 64, {3, n}) : b->positions.tensor(kDLInt, 64, {n});
  QSA_TRY(b->w_k.allocate_from(memory, c.w_k.data(), bytes_of(c.w_k), error));
  args->w_k = b->w_k.tensor(kDLBfloat, 16, {c.head_dim});
  QSA_TRY(b->w_q.allocate_from(memory, c.w_q.data(), bytes_of(c.w_q), error));
  args->w_q = b->w_q.tensor(kDLBfloat, 16, {c.head_dim});
  const bool fp8 = c.store_dtype == StoreDtype::kFp8E4m3;
  const int64_t q_out_bytes = n * c.num_heads * c.head_dim * (fp8 ? 1 : 2);
  QSA_TRY(b->q_out.allocate(memory, static_cast<size_t>(q_out_bytes), error));
  args->q_out = b->q_out.tensor(fp8 ? kDLUInt : kDLBfloat, fp8 ? 8 : 16, {n, c.num_heads, c.head_dim});
  QSA_TRY(b->step_status.allocate(memory, sizeof(int32_t), error));
  args->step_status = b->step_status.tensor(kDLInt, 32, {1});
  return Status::kOk;
}

}  // namespace qsa::backends
