// One test per validation rule of SPEC 1.4, and the order in which the rules are checked.

#include <gtest/gtest.h>

#include "qsa/validate.hpp"

namespace qsa {
namespace {

// A valid compressed input: two requests of 3 and 2 rows, one padding row.
MetadataInput valid_input() {
  MetadataInput in;
  in.cache.kind = CacheKind::kCompressed;
  in.cache.compress_ratio = 4;
  in.cache.storage_block_size = 16;
  in.batch.query_start_loc = {0, 3, 5};
  in.batch.seq_lens = {10, 2};
  in.batch.num_actual_tokens = 6;
  in.batch.common_slot_mapping = {1, 2, 3, 4, 5, -1};
  in.block_table = BlockTable::from_rows({{0, 1}, {2, 3}});
  return in;
}

Error rejected(const MetadataInput& in) {
  Error error;
  EXPECT_EQ(validate(in, &error), Status::kInvalidInput);
  return error;
}

void expect_error(const MetadataInput& in, const std::string& field, int64_t index, const std::string& rule) {
  const Error e = rejected(in);
  EXPECT_EQ(e.field, field) << e;
  EXPECT_EQ(e.index, index) << e;
  EXPECT_EQ(e.rule, rule) << e;
  EXPECT_FALSE(e.message.empty());
}

TEST(Validate, AcceptsTheValidInputOfEveryKind) {
  MetadataInput in = valid_input();
  Error error;
  EXPECT_EQ(validate(in, &error), Status::kOk) << error;
  in.cache = CacheKindConfig{CacheKind::kRing, std::nullopt, 0, 8, std::nullopt};
  EXPECT_EQ(validate(in, &error), Status::kOk) << error;
  in.cache = CacheKindConfig{CacheKind::kPassthrough, 1, 0, 0, std::nullopt};
  EXPECT_EQ(validate(in, &error), Status::kOk) << error;
}

TEST(Validate, Rule1UnknownKind) {
  MetadataInput in = valid_input();
  in.cache.kind = static_cast<CacheKind>(7);
  expect_error(in, "kind", -1, "unknown-kind");
}

TEST(Validate, Rule1CompressRatioOutOfRange) {
  MetadataInput in = valid_input();
  for (int64_t c : {1, 1025, 0}) {
    in.cache.compress_ratio = c;
    expect_error(in, "compress_ratio", -1, "out-of-range");
  }
  in.cache.compress_ratio.reset();  // required for the compressed kind
  expect_error(in, "compress_ratio", -1, "out-of-range");
  in.cache = CacheKindConfig{CacheKind::kRing, 0, 0, 8, std::nullopt};  // ring ratio must be >= 1
  expect_error(in, "compress_ratio", -1, "out-of-range");
  in.cache = CacheKindConfig{CacheKind::kPassthrough, 2, 0, 0, std::nullopt};  // passthrough: omitted or 1
  expect_error(in, "compress_ratio", -1, "out-of-range");
}

TEST(Validate, Rule1StorageBlockSizeOutOfRange) {
  MetadataInput in = valid_input();
  in.cache.storage_block_size = 0;
  expect_error(in, "storage_block_size", -1, "out-of-range");
  in.cache.storage_block_size = (int64_t{1} << 20) + 1;
  expect_error(in, "storage_block_size", -1, "out-of-range");
}

TEST(Validate, Rule1RingCapacityOutOfRange) {
  MetadataInput in = valid_input();
  in.cache = CacheKindConfig{CacheKind::kRing, std::nullopt, 0, 0, std::nullopt};
  expect_error(in, "ring_capacity", -1, "out-of-range");
  in.cache.ring_capacity = (int64_t{1} << 20) + 1;
  expect_error(in, "ring_capacity", -1, "out-of-range");
}

TEST(Validate, Rule1RequestCapacityBelowTheRequestCount) {
  MetadataInput in = valid_input();
  in.cache.request_capacity = 1;  // NR = 2
  expect_error(in, "request_capacity", -1, "out-of-range");
  in.cache.request_capacity = 2;
  Error error;
  EXPECT_EQ(validate(in, &error), Status::kOk) << error;
}

TEST(Validate, Rule1ReorderBatchThresholdBelowOne) {
  MetadataInput in = valid_input();
  in.batch.reorder_batch_threshold = 0;
  expect_error(in, "reorder_batch_threshold", -1, "out-of-range");
}

TEST(Validate, Rule2QueryStartLocTooShort) {
  MetadataInput in = valid_input();
  in.batch.query_start_loc = {0};
  expect_error(in, "query_start_loc", -1, "too-short");
  in.batch.query_start_loc = {};
  expect_error(in, "query_start_loc", -1, "too-short");
}

TEST(Validate, Rule2QueryStartLocNonzeroStart) {
  MetadataInput in = valid_input();
  in.batch.query_start_loc = {1, 3, 5};
  expect_error(in, "query_start_loc", 0, "nonzero-start");
}

TEST(Validate, Rule2QueryStartLocDecreasing) {
  MetadataInput in = valid_input();
  in.batch.query_start_loc = {0, 3, 2};
  expect_error(in, "query_start_loc", 2, "decreasing");
}

TEST(Validate, Rule2QueryStartLocOutOfRange) {
  MetadataInput in = valid_input();
  in.batch.query_start_loc = {0, 3, int64_t{1} << 31};
  expect_error(in, "query_start_loc", 2, "out-of-range");
}

TEST(Validate, Rule3NumActualTokensBelowMappedRows) {
  MetadataInput in = valid_input();
  in.batch.num_actual_tokens = 4;  // M = 5
  expect_error(in, "num_actual_tokens", -1, "out-of-range");
}

TEST(Validate, Rule3NumActualTokensAboveTheLimit) {
  MetadataInput in = valid_input();
  in.batch.num_actual_tokens = (int64_t{1} << 24) + 1;
  expect_error(in, "num_actual_tokens", -1, "out-of-range");
}

TEST(Validate, Rule4SeqLensWrongLength) {
  MetadataInput in = valid_input();
  in.batch.seq_lens = {10};
  expect_error(in, "seq_lens", -1, "wrong-length");
}

TEST(Validate, Rule4SeqLensShorterThanQuery) {
  MetadataInput in = valid_input();
  in.batch.seq_lens = {10, 1};  // q_1 = 2
  expect_error(in, "seq_lens", 1, "shorter-than-query");
  in.batch.seq_lens = {-1, 2};  // negatives are covered by the same rule
  expect_error(in, "seq_lens", 0, "shorter-than-query");
}

TEST(Validate, Rule4SeqLensOutOfRange) {
  MetadataInput in = valid_input();
  in.batch.seq_lens = {10, int64_t{1} << 31};
  expect_error(in, "seq_lens", 1, "out-of-range");
}

TEST(Validate, Rule5CommonSlotMappingTooShort) {
  MetadataInput in = valid_input();
  in.batch.common_slot_mapping = {1, 2, 3, 4, 5};  // N = 6
  expect_error(in, "common_slot_mapping", -1, "too-short");
}

TEST(Validate, Rule5CommonSlotMappingPaddingNotNegative) {
  MetadataInput in = valid_input();
  in.batch.common_slot_mapping[5] = 0;  // row 5 is padding
  expect_error(in, "common_slot_mapping", 5, "padding-not-negative");
}

TEST(Validate, Rule5RingKindDoesNotReadCommonSlots) {
  MetadataInput in = valid_input();
  in.cache = CacheKindConfig{CacheKind::kRing, std::nullopt, 0, 8, std::nullopt};
  in.batch.common_slot_mapping.clear();
  Error error;
  EXPECT_EQ(validate(in, &error), Status::kOk) << error;
}

TEST(Validate, Rule6BlockTableTooFewRows) {
  MetadataInput in = valid_input();
  in.block_table = BlockTable::from_rows({{0, 1}});
  expect_error(in, "block_table", -1, "too-few-rows");
}

TEST(Validate, Rule6BlockTableWhoseStridesLeaveItsStorage) {
  MetadataInput in = valid_input();
  in.block_table.row_stride = 5;  // row 1 would read past the 4 stored entries
  expect_error(in, "block_table", -1, "malformed");
}

// fuzz/regressions/fuzz_metadata/9afe124b...: strides near 2^63 made the coverage check overflow.
TEST(Validate, Rule6StridesThatWouldOverflowAreMalformedNotUndefined) {
  MetadataInput in = valid_input();
  for (int64_t stride : {INT64_MAX, INT64_MAX / 2 + 1, int64_t{7087576650198116715}}) {
    in.block_table.row_stride = stride;
    expect_error(in, "block_table", -1, "malformed");
    in.block_table.row_stride = 2;
    in.block_table.col_stride = stride;
    expect_error(in, "block_table", -1, "malformed");
    in.block_table.col_stride = 1;
  }
  in.block_table.row_stride = 0;  // every row aliases row 0: inside the storage, so well formed
  in.block_table.col_stride = 3;  // column 1 at element 3, the last one
  Error error;
  EXPECT_EQ(validate(in, &error), Status::kOk) << error;
  in.block_table.col_stride = 4;
  expect_error(in, "block_table", -1, "malformed");
}

TEST(Validate, ReportsTheFirstFailureInSpecOrder) {
  MetadataInput in = valid_input();
  in.batch.seq_lens = {10};              // rule 4
  in.batch.common_slot_mapping.clear();  // rule 5
  in.block_table = BlockTable{};         // rule 6
  in.batch.query_start_loc = {0, 3, 2};  // rule 2 wins
  EXPECT_EQ(rejected(in).field, "query_start_loc");
  in.batch.query_start_loc = {0, 3, 5};
  EXPECT_EQ(rejected(in).field, "seq_lens");
  in.batch.seq_lens = {10, 2};
  EXPECT_EQ(rejected(in).field, "common_slot_mapping");
  in.batch.common_slot_mapping = {1, 2, 3, 4, 5, -1};
  EXPECT_EQ(rejected(in).field, "block_table");
  in.cache.compress_ratio = 1;  // rule 1 beats everything
  EXPECT_EQ(rejected(in).field, "compress_ratio");
}

// fuzz/regressions/fuzz_metadata/02621f48...: the caller poisons the output before validate()
// rejects the input; K used to overflow for a huge C, and a huge N allocated 2^24 rows.
TEST(Validate, PoisoningAnInvalidInputNeitherOverflowsNorAllocatesForItsNumbers) {
  MetadataInput in = valid_input();
  in.cache.compress_ratio = INT64_MAX - 2;
  in.batch.num_actual_tokens = 9;
  EXPECT_EQ(k_work_rows(in), (9 + 1023 * 2) / 1024) << "operands clamped to SPEC 1.3's limits";
  in.batch.num_actual_tokens = INT64_MAX;
  const MetadataOutput out = make_poisoned_metadata_output(in);
  EXPECT_TRUE(out.token_to_req.empty() && out.slot_mapping.empty() && out.k_work_metadata.empty());
  expect_error(in, "compress_ratio", -1, "out-of-range");
  in.batch.num_actual_tokens = int64_t{1} << 24;  // within the limits, but the input is invalid
  EXPECT_TRUE(make_poisoned_metadata_output(in).slot_mapping.empty()) << "no 2^24 rows for a rejected input";
  in = valid_input();
  EXPECT_EQ(k_work_rows(in), (6 + 3 * 2) / 4) << "exact for a valid input";
  EXPECT_EQ(make_poisoned_metadata_output(in).k_work_metadata.size(), 6u);
}

}  // namespace
}  // namespace qsa
