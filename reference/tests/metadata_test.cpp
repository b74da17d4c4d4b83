// The reference metadata builder against SPEC 2 and the worked examples of SPEC 8.
// Expected values are derived by hand from the SPEC in the comments beside them.

#include <gtest/gtest.h>

#include "qsa/invariants.hpp"
#include "qsa/reference/metadata.hpp"
#include "qsa/spec_examples.hpp"

namespace qsa {
namespace {

MetadataOutput build(const MetadataInput& in) {
  MetadataOutput out = make_poisoned_metadata_output(in);
  Error error;
  const Status status = reference::build_metadata(in, &out, &error);
  EXPECT_EQ(status, Status::kOk) << error;
  if (auto v = check_metadata_invariants(in, out)) ADD_FAILURE() << "invariant broken: " << to_string(*v);
  return out;
}

MetadataInput compressed(std::vector<int64_t> qsl, std::vector<int64_t> seq, int64_t n, int64_t c, int64_t s,
                         std::vector<std::vector<int32_t>> table) {
  MetadataInput in;
  in.cache.kind = CacheKind::kCompressed;
  in.cache.compress_ratio = c;
  in.cache.storage_block_size = s;
  in.batch.query_start_loc = std::move(qsl);
  in.batch.seq_lens = std::move(seq);
  in.batch.num_actual_tokens = n;
  for (int64_t t = 0; t < n; ++t)
    in.batch.common_slot_mapping.push_back(t < in.batch.query_start_loc.back() ? 100 + t : -1);
  in.block_table = BlockTable::from_rows(table);
  return in;
}

MetadataInput ring(std::vector<int64_t> qsl, std::vector<int64_t> seq, int64_t n, int64_t r,
                   std::vector<std::vector<int32_t>> table) {
  MetadataInput in;
  in.cache.kind = CacheKind::kRing;
  in.cache.ring_capacity = r;
  in.batch.query_start_loc = std::move(qsl);
  in.batch.seq_lens = std::move(seq);
  in.batch.num_actual_tokens = n;
  in.block_table = BlockTable::from_rows(table);
  return in;
}

TEST(MetadataReference, ReproducesEverySpecExample) {
  for (const MetadataExample& example : spec_metadata_examples()) {
    SCOPED_TRACE(example.name);
    const MetadataOutput out = build(example.input);
    const auto diff = compare_with_example(example, out);
    EXPECT_FALSE(diff.has_value()) << *diff;
  }
}

TEST(MetadataReference, RingSurvivalKeepsTheOpenGroupForEveryStart) {
  auto build_fn = [](const MetadataInput& in, MetadataOutput* out, Error* e) {
    return reference::build_metadata(in, out, e);
  };
  for (int64_t s = 0; s < 128; ++s) {
    const auto failure = check_ring_survival(s, build_fn);
    EXPECT_FALSE(failure.has_value()) << *failure;
  }
}

TEST(MetadataReference, PaddingRowsAreInert) {
  // One request of 2 rows at positions 8, 9 (C = 2 closes a group at 9), then 3 padding rows.
  MetadataInput in = compressed({0, 2}, {10}, 5, 2, 4, {{7, 8, 9}});
  const MetadataOutput out = build(in);
  for (int t = 2; t < 5; ++t) {
    EXPECT_EQ(out.token_to_req[t], 0) << t;
    EXPECT_EQ(out.logical_positions[t], -1) << t;
    EXPECT_EQ(out.visible_blocks[t], 0) << t;
    EXPECT_EQ(out.slot_mapping[t], -1) << t;
  }
  // Position 9 closes group 4 = logical block 1 (S = 4), row 0: slot 8·4 + 0.
  EXPECT_EQ(out.slot_mapping[1], 32);
}

TEST(MetadataReference, ZeroLengthRequestInTheMiddleIsNeverChosen) {
  // Requests 0 and 2 have one row each; request 1 has none: rows map to 0 and 2.
  MetadataInput in = ring({0, 1, 1, 2}, {5, 3, 9}, 2, 4, {{0}, {1}, {2}});
  const MetadataOutput out = build(in);
  EXPECT_EQ(out.token_to_req, (std::vector<int32_t>{0, 2}));
  EXPECT_EQ(out.logical_positions, (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(out.slot_mapping, (std::vector<int64_t>{0 * 4 + 0, 2 * 4 + 0}));
}

TEST(MetadataReference, ZeroLengthRequestsAtTheTailGetNoWork) {
  // C = 4: request 0 (positions 2..5) closes group 0 at position 3 -> one item; two padded requests.
  MetadataInput in = compressed({0, 4, 4, 4}, {6, 0, 0}, 4, 4, 2, {{1}, {2}, {3}});
  const MetadataOutput out = build(in);
  // K = (4 + 3·3) / 4 = 3: (0, 0), then (-1, -1) twice.
  EXPECT_EQ(out.k_work_metadata, (std::vector<int32_t>{0, 0, -1, -1, -1, -1}));
  EXPECT_EQ(out.token_to_req, (std::vector<int32_t>{0, 0, 0, 0}));
}

TEST(MetadataReference, NegativeBlockEntryGivesNoSlot) {
  // Ring: request 1's ring block is -1; compressed: logical block 0 of request 0 is -1.
  const MetadataOutput r = build(ring({0, 1, 2}, {1, 1}, 2, 4, {{5}, {-1}}));
  EXPECT_EQ(r.slot_mapping, (std::vector<int64_t>{20, -1}));
  const MetadataOutput c = build(compressed({0, 4}, {4}, 4, 4, 2, {{-1, 6}}));
  EXPECT_EQ(c.slot_mapping, (std::vector<int64_t>{-1, -1, -1, -1}));
}

TEST(MetadataReference, BlockColumnPastTheTableWidthGivesNoSlot) {
  // C = 2, S = 2: position 5 closes group 2, logical block 1, but the table has only column 0.
  const MetadataOutput out = build(compressed({0, 6}, {6}, 6, 2, 2, {{3}}));
  EXPECT_EQ(out.slot_mapping, (std::vector<int64_t>{-1, 6, -1, 7, -1, -1}));
  // The ring kind with W = 0 has no block at all.
  const MetadataOutput r = build(ring({0, 2}, {2}, 2, 4, {{}}));
  EXPECT_EQ(r.slot_mapping, (std::vector<int64_t>{-1, -1}));
}

TEST(MetadataReference, NegativeCommonSlotSuppressesTheCompressedSlotOnly) {
  // Compressed: row 1 closes group 0 but its common slot is -1. Passthrough copies -1.
  MetadataInput in = compressed({0, 4}, {4}, 4, 2, 4, {{2}});
  in.batch.common_slot_mapping = {50, -1, 52, 53};
  const MetadataOutput out = build(in);
  EXPECT_EQ(out.slot_mapping, (std::vector<int64_t>{-1, -1, -1, 9}));  // group 1 -> 2·4 + 1
  EXPECT_EQ(out.visible_blocks, (std::vector<int32_t>{0, 1, 1, 2}));   // stale rows still visible by position
  in.cache = CacheKindConfig{};
  in.cache.kind = CacheKind::kPassthrough;
  const MetadataOutput pass = build(in);
  EXPECT_EQ(pass.slot_mapping, (std::vector<int64_t>{50, -1, 52, 53}));
}

TEST(MetadataReference, TokenOnlyPaddingWithoutPaddedRequests) {
  // N = 7 > M = 3 with no zero-length request.
  MetadataInput in = ring({0, 3}, {3}, 7, 8, {{1}});
  const MetadataOutput out = build(in);
  EXPECT_EQ(out.slot_mapping, (std::vector<int64_t>{8, 9, 10, -1, -1, -1, -1}));
  EXPECT_EQ(out.logical_positions, (std::vector<int64_t>{0, 1, 2, -1, -1, -1, -1}));
}

TEST(MetadataReference, ColumnStridedBlockTableReadsTheSameEntries) {
  const std::vector<std::vector<int32_t>> table = {{4, 5, 6}, {7, 8, 9}};
  MetadataInput dense = compressed({0, 8, 16}, {8, 16}, 16, 2, 2, table);
  MetadataInput strided = dense;
  strided.block_table = BlockTable::column_major(table);
  ASSERT_EQ(strided.block_table.row_stride, 1);
  const MetadataOutput a = build(dense);
  const MetadataOutput b = build(strided);
  EXPECT_EQ(a.slot_mapping, b.slot_mapping);
  // Request 1, positions 8..15: groups 4..7 -> logical blocks 2, 2, 3, 3; block 3 is past W = 3.
  EXPECT_EQ(b.slot_mapping[9], 9 * 2 + 0);
  EXPECT_EQ(b.slot_mapping[11], 9 * 2 + 1);
  EXPECT_EQ(b.slot_mapping[13], -1);
}

TEST(MetadataReference, EmptyStepHasOnlyKWorkTail) {
  // N = 0 with four padded requests: K = (0 + 3·4) / 4 = 3 rows of (-1, -1).
  const MetadataOutput out = build(compressed({0, 0, 0, 0, 0}, {0, 0, 0, 0}, 0, 4, 2, {{0}, {0}, {0}, {0}}));
  EXPECT_TRUE(out.token_to_req.empty());
  EXPECT_TRUE(out.slot_mapping.empty());
  EXPECT_EQ(out.k_work_metadata, (std::vector<int32_t>(6, -1)));
}

TEST(MetadataReference, KWorkGivesEveryNonEmptyRequestAtLeastOneItem) {
  // C = 4: request 0 positions 1..2 close nothing (one item); request 1 positions 0..11 close 3 groups.
  const MetadataOutput out = build(compressed({0, 2, 14}, {3, 12}, 14, 4, 8, {{0}, {1}}));
  // K = (14 + 3·2) / 4 = 5.
  EXPECT_EQ(out.k_work_metadata, (std::vector<int32_t>{0, 0, 1, 0, 1, 1, 1, 2, -1, -1}));
}

TEST(MetadataReference, RingBuilderRatioDrivesVisibleBlocks) {
  MetadataInput in = ring({0, 4}, {10}, 4, 4, {{0}});
  in.cache.compress_ratio = 4;
  const MetadataOutput out = build(in);
  // Positions 6..9: min((p + 1) / 4, 10 / 4) = 1, 2, 2, 2.
  EXPECT_EQ(out.visible_blocks, (std::vector<int32_t>{1, 2, 2, 2}));
}

TEST(MetadataReference, InvalidInputLeavesTheOutputUntouched) {
  MetadataInput in = ring({0, 3, 2}, {3, 3}, 3, 4, {{0}, {1}});
  MetadataOutput out = make_poisoned_metadata_output(in);
  const MetadataOutput before = out;
  Error error;
  EXPECT_EQ(reference::build_metadata(in, &out, &error), Status::kInvalidInput);
  EXPECT_EQ(error.rule, "decreasing");
  EXPECT_EQ(out.slot_mapping, before.slot_mapping);
  EXPECT_EQ(out.token_to_req, before.token_to_req);
}

}  // namespace
}  // namespace qsa
