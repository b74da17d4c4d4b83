// The ring kind's parameter block (optimized/src/kernels/metadata_params.hpp) carries every field
// of the launch's MetadataParams: its tiles read the block the launcher converts, so a field left
// out of the conversion would reach them as zero.

#include <gtest/gtest.h>

#include <cstdint>

#include "kernels/metadata_params.hpp"

namespace qsa {
namespace {

using cuda::detail::InvariantDivider;
using cuda::detail::MetadataParams;
using cuda::detail::RingMetadataParams;

// A distinct, non-zero pointer for field k (never dereferenced).
template <typename T>
T* fake_pointer(uintptr_t k) {
  return reinterpret_cast<T*>(uintptr_t{0x1000} * k);
}

void expect_same_divider(const InvariantDivider& a, const InvariantDivider& b, const char* field) {
  EXPECT_EQ(a.divisor, b.divisor) << field;
  EXPECT_EQ(a.multiplier, b.multiplier) << field;
  EXPECT_EQ(a.shift, b.shift) << field;
}

TEST(RingMetadataParams, TheConversionCopiesEveryField) {
  MetadataParams p{};
  p.query_start_loc = fake_pointer<const int32_t>(1);
  p.seq_lens = fake_pointer<const int32_t>(2);
  p.common_slot_mapping = fake_pointer<const int64_t>(3);
  p.block_table = fake_pointer<const int32_t>(4);
  p.row_stride = 5;
  p.col_stride = 6;
  p.block_table_cols = 7;
  p.num_tokens = 8;
  p.num_requests = 9;
  p.num_work_rows = 10;
  p.kind = 11;
  p.compress_ratio = InvariantDivider::make(12);
  p.builder_ratio = InvariantDivider::make(13);
  p.storage_block_size = InvariantDivider::make(14);
  p.ring_capacity = InvariantDivider::make(15);
  p.token_to_req = fake_pointer<int32_t>(16);
  p.logical_positions = fake_pointer<int64_t>(17);
  p.visible_blocks = fake_pointer<int32_t>(18);
  p.slot_mapping = fake_pointer<int64_t>(19);
  p.k_work_metadata = fake_pointer<int32_t>(20);
  p.rows_per_thread = 21;
  p.work_rows_per_thread = 22;
  p.work_blocks = 23;
  p.request_tables = fake_pointer<int32_t>(24);

  const RingMetadataParams r = cuda::detail::ring_tile_params(p);
  EXPECT_EQ(r.query_start_loc, p.query_start_loc);
  EXPECT_EQ(r.seq_lens, p.seq_lens);
  EXPECT_EQ(r.common_slot_mapping, p.common_slot_mapping);
  EXPECT_EQ(r.block_table, p.block_table);
  EXPECT_EQ(r.row_stride, p.row_stride);
  EXPECT_EQ(r.col_stride, p.col_stride);
  EXPECT_EQ(r.block_table_cols, p.block_table_cols);
  EXPECT_EQ(r.num_tokens, p.num_tokens);
  EXPECT_EQ(r.num_requests, p.num_requests);
  EXPECT_EQ(r.num_work_rows, p.num_work_rows);
  EXPECT_EQ(r.kind, p.kind);
  expect_same_divider(r.compress_ratio, p.compress_ratio, "compress_ratio");
  expect_same_divider(r.builder_ratio, p.builder_ratio, "builder_ratio");
  expect_same_divider(r.storage_block_size, p.storage_block_size, "storage_block_size");
  expect_same_divider(r.ring_capacity, p.ring_capacity, "ring_capacity");
  EXPECT_EQ(r.token_to_req, p.token_to_req);
  EXPECT_EQ(r.logical_positions, p.logical_positions);
  EXPECT_EQ(r.visible_blocks, p.visible_blocks);
  EXPECT_EQ(r.slot_mapping, p.slot_mapping);
  EXPECT_EQ(r.k_work_metadata, p.k_work_metadata);
  EXPECT_EQ(r.rows_per_thread, p.rows_per_thread);
  EXPECT_EQ(r.work_rows_per_thread, p.work_rows_per_thread);
  EXPECT_EQ(r.work_blocks, p.work_blocks);
  EXPECT_EQ(r.request_tables, p.request_tables);
  // Both blocks hold the same fields: MetadataParams has 8 bytes of padding the ring order avoids.
  EXPECT_EQ(sizeof(MetadataParams), sizeof(RingMetadataParams) + 8);
}

}  // namespace
}  // namespace qsa
