#include "step_update_args.hpp"

#include <algorithm>
#include <string>

#include "qsa/cuda/kernel_path.hpp"

namespace qsa::cuda {
namespace detail {
namespace {

Status bad_argument(Error* error, const char* field, const std::string& message) {
  return invalid(error, field, -1, "launch-argument", message);
}

bool aligned(const void* p, uintptr_t bytes) { return (reinterpret_cast<uintptr_t>(p) & (bytes - 1)) == 0; }

}  // namespace

Status check_step_args(const StepUpdateDeviceArgs& a, Error* error) {
  const int d = a.head_dim;
  if (d != 32 && d != 64 && d != 128 && d != 256 && d != 512)
    return bad_argument(error, "head_dim", "D must be 32, 64, 128, 256 or 512");
  if (a.rotary_dim < 2 || a.rotary_dim > d || a.rotary_dim % 2 != 0)
    return bad_argument(error, "rotary_dim", "rd must be even and in [2, D]");
  if (a.num_heads < 1 || a.compress_ratio < 2 || a.storage_block_size < 1 || a.ring_capacity < 1)
    return bad_argument(error, "num_heads", "HQ, C, S and R must be positive (C >= 2)");
  if (a.num_tokens < 0 || a.num_requests < 1) return bad_argument(error, "num_tokens", "N must be >= 0 and NR >= 1");
  if (a.position_axes != 1 && a.position_axes != 3)
    return bad_argument(error, "position_axes", "positions are [N] or [3, N]");
  const bool rows = a.num_tokens > 0;
  if (rows && (a.keys == nullptr || a.queries == nullptr || a.positions == nullptr || a.q_out == nullptr ||
               a.common_slot_mapping == nullptr))
    return bad_argument(error, "keys",
                        "keys, queries, positions, common_slot_mapping and q_out are required when N > 0");
  if (a.cos_sin == nullptr || a.w_k == nullptr || a.w_q == nullptr || a.status == nullptr ||
      a.query_start_loc == nullptr || a.seq_lens == nullptr)
    return bad_argument(error, "cos_sin", "cos_sin, w_k, w_q, status, query_start_loc and seq_lens are required");
  if (a.num_work_rows() > 0 && (a.k_work_metadata == nullptr || !aligned(a.k_work_metadata, 8)))
    return bad_argument(error, "k_work_metadata", "k_work_metadata is required and 8-byte aligned");
  if ((a.block_table_cols > 0 && a.block_table == nullptr) ||
      (a.ring_block_table_cols > 0 && a.ring_block_table == nullptr))
    return bad_argument(error, "block_table", "a block table with columns needs a pointer");
  if ((a.ring_num_blocks > 0 && a.ring == nullptr) || (a.compressed_num_blocks > 0 && a.compressed == nullptr))
    return bad_argument(error, "ring", "a cache with blocks needs a pointer");
  if (!aligned(a.positions, 8) || !aligned(a.common_slot_mapping, 8))
    return bad_argument(error, "positions", "int64 arrays must be 8-byte aligned");
  if (!aligned(a.keys, 2) || !aligned(a.queries, 2) || !aligned(a.ring, 2) || !aligned(a.w_k, 2) ||
      !aligned(a.w_q, 2) || !aligned(a.cos_sin, 2))
    return bad_argument(error, "keys", "bf16 arrays must be 2-byte aligned");

  return Status::kOk;
}

StepParams make_step_params(const StepUpdateDeviceArgs& a) {
  StepParams p{};
  p.query_start_loc = a.query_start_loc;
  p.seq_lens = a.seq_lens;
  p.common_slot_mapping = a.common_slot_mapping;
  p.block_table = a.block_table;
  p.block_table_row_stride = a.block_table_row_stride;
  p.block_table_col_stride = a.block_table_col_stride;
  p.block_table_cols = a.block_table_cols;
  p.ring_block_table = a.ring_block_table;
  p.ring_block_table_row_stride = a.ring_block_table_row_stride;
  p.ring_block_table_cols = a.ring_block_table_cols;
  p.k_work_metadata = a.k_work_metadata;
  p.num_work_rows = a.num_work_rows();
  p.num_tokens = a.num_tokens;
  p.num_requests = a.num_requests;
  p.compress_ratio = a.compress_ratio;
  const bool power_of_two = a.compress_ratio > 0 && (a.compress_ratio & (a.compress_ratio - 1)) == 0;
  p.inv_compress_ratio = power_of_two ? 1.0f / static_cast<float>(a.compress_ratio) : 0.0f;
  p.compress_divider = detail::InvariantDivider::make(static_cast<uint32_t>(std::max(a.compress_ratio, 1)));
  p.storage_divider = detail::InvariantDivider::make(static_cast<uint32_t>(std::max(a.storage_block_size, 1)));
  p.ring_rows = detail::InvariantDivider::make(static_cast<uint32_t>(std::max(a.ring_capacity, 1)));
  p.storage_block_size = a.storage_block_size;
  p.ring_capacity = a.ring_capacity;
  p.rotary_dim = a.rotary_dim;
  p.num_heads = a.num_heads;
  p.eps = a.eps;
  for (int i = 0; i < 3; ++i) p.mrope_sections[i] = a.mrope_sections[i];
  p.mrope = a.mrope;
  p.ring_positions = a.ring_positions;
  p.fp8 = a.store_dtype == StoreDtype::kFp8E4m3;
  p.max_position = a.max_position;
  p.ring_tail_offset = static_cast<int32_t>(ring_position_offset(a.head_dim));
  p.keys = a.keys;
  p.queries = a.queries;
  p.positions = a.positions;
  p.position_axes = a.position_axes;
  p.cos_sin = a.cos_sin;
  p.w_k = a.w_k;
  p.w_q = a.w_q;
  p.ring = a.ring;
  p.ring_num_blocks = a.ring_num_blocks;
  p.ring_block_stride = a.ring_block_stride;
  p.ring_row_stride = a.ring_row_stride;
  p.compressed = a.compressed;
  p.compressed_num_blocks = a.compressed_num_blocks;
  p.compressed_block_stride = a.compressed_block_stride;
  p.compressed_row_stride = a.compressed_row_stride;
  p.q_out = a.q_out;
  p.status = a.status;
  p.programmatic_launch = a.programmatic_launch;
  return p;
}

bool fast_layout(const StepParams& p, int d) {
  const bool strides = fast_step_strides(d, p.rotary_dim, p.fp8, p.compressed_row_stride, p.compressed_block_stride,
                                         p.ring_row_stride, p.ring_block_stride);
  const bool buffers = aligned(p.cos_sin, 16) && aligned(p.compressed, p.fp8 ? 8 : 16) && aligned(p.ring, 8) &&
                       aligned(p.keys, 16) && aligned(p.queries, 16) && aligned(p.q_out, p.fp8 ? 8 : 16);
  return strides && buffers;
}

}  // namespace detail

void StepUpdateDeviceArgs::set_config(const StepConfig& c) {
  compress_ratio = static_cast<int32_t>(c.compress_ratio);
  storage_block_size = static_cast<int32_t>(c.storage_block_size);
  ring_capacity = static_cast<int32_t>(c.ring_capacity);
  head_dim = static_cast<int32_t>(c.head_dim);
  rotary_dim = static_cast<int32_t>(c.rotary_dim);
  num_heads = static_cast<int32_t>(c.num_heads);
  eps = c.eps;
  mrope = c.mrope_sections.has_value();
  for (int i = 0; i < 3; ++i) mrope_sections[i] = mrope ? static_cast<int32_t>((*c.mrope_sections)[i]) : 0;
  ring_positions = c.ring_positions;
  store_dtype = c.store_dtype;
  max_position = static_cast<int32_t>(c.max_position);
}

int64_t StepUpdateDeviceArgs::num_work_rows() const {
  if (compress_ratio < 1) return 0;
  return k_work_rows(num_tokens, num_requests, compress_ratio);
}

}  // namespace qsa::cuda
