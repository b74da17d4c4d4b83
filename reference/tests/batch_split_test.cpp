// The batch split of SPEC 2 (split_decodes_and_prefills with require_uniform=True), rule by rule.

#include <gtest/gtest.h>

#include "qsa/reference/metadata.hpp"

namespace qsa {
namespace {

Batch batch(std::vector<int64_t> query_lens, int64_t threshold, int64_t extra_padding_tokens = 0) {
  Batch b;
  b.query_start_loc = {0};
  for (int64_t q : query_lens) {
    b.query_start_loc.push_back(b.query_start_loc.back() + q);
    b.seq_lens.push_back(q == 0 ? 0 : q + 100);
  }
  b.num_actual_tokens = b.query_start_loc.back() + extra_padding_tokens;
  b.reorder_batch_threshold = threshold;
  return b;
}

TEST(BatchSplit, Rule1AllDecodesWhenThresholdIsOneAndNoQueryExceedsIt) {
  const BatchSplit s = reference::split_decodes_and_prefills(batch({1, 1, 0}, 1, 2));
  EXPECT_EQ(s.num_decodes, 3);
  EXPECT_EQ(s.num_decode_tokens, 4);  // N, padding included
  EXPECT_EQ(s.num_prefills, 0);
  EXPECT_EQ(s.num_prefill_tokens, 0);
  EXPECT_EQ(s.decode_query_len, 1);
}

TEST(BatchSplit, Rule2NoDecodesWhenTheFirstQueryExceedsTheThreshold) {
  const BatchSplit s = reference::split_decodes_and_prefills(batch({5, 4, 4}, 4));
  EXPECT_EQ(s.num_decodes, 0);
  EXPECT_EQ(s.num_decode_tokens, 0);
  EXPECT_EQ(s.num_prefills, 3);
  EXPECT_EQ(s.num_prefill_tokens, 13);
  EXPECT_EQ(s.decode_query_len, 0);
}

TEST(BatchSplit, Rule3PaddedUniformBatchIsAllDecodesWithoutTheNEqualsNrQ0Assertion) {
  // q = (4, 4, 0) with two padding tokens: N = 10 != NR·q_0 = 12, still all decodes (SPEC 10).
  const BatchSplit s = reference::split_decodes_and_prefills(batch({4, 4, 0}, 4, 2));
  EXPECT_EQ(s.num_decodes, 3);
  EXPECT_EQ(s.num_decode_tokens, 10);
  EXPECT_EQ(s.num_prefills, 0);
  EXPECT_EQ(s.num_prefill_tokens, 0);
  EXPECT_EQ(s.decode_query_len, 4);
}

TEST(BatchSplit, Rule4FirstDifferentQueryStartsThePrefills) {
  const BatchSplit s = reference::split_decodes_and_prefills(batch({4, 4, 7, 4}, 4, 3));
  EXPECT_EQ(s.num_decodes, 2);
  EXPECT_EQ(s.num_decode_tokens, 8);  // qsl[2]
  EXPECT_EQ(s.num_prefills, 2);
  EXPECT_EQ(s.num_prefill_tokens, 22 - 8);
  EXPECT_EQ(s.decode_query_len, 4);
}

TEST(BatchSplit, Rule4ZeroLengthRequestCountsAsDifferent) {
  const BatchSplit s = reference::split_decodes_and_prefills(batch({4, 0, 4, 9}, 4));
  EXPECT_EQ(s.num_decodes, 1);
  EXPECT_EQ(s.num_decode_tokens, 4);
  EXPECT_EQ(s.num_prefills, 3);
}

TEST(BatchSplit, Rule4WithThresholdOneAndAPrefill) {
  const BatchSplit s = reference::split_decodes_and_prefills(batch({1, 1, 3}, 1));
  EXPECT_EQ(s.num_decodes, 2);
  EXPECT_EQ(s.num_decode_tokens, 2);
  EXPECT_EQ(s.decode_query_len, 1);
}

TEST(BatchSplit, LeadingZeroLengthRequestGivesDecodeQueryLenZero) {
  const BatchSplit s = reference::split_decodes_and_prefills(batch({0, 5}, 4));
  EXPECT_EQ(s.num_decodes, 1);
  EXPECT_EQ(s.num_decode_tokens, 0);
  EXPECT_EQ(s.decode_query_len, 0);
}

TEST(BatchSplit, MaxQueryAndSeqLenAreMaxima) {
  Batch b = batch({3, 9, 2}, 1);
  b.seq_lens = {50, 9, 70};
  const BatchSplit s = reference::split_decodes_and_prefills(b);
  EXPECT_EQ(s.max_query_len, 9);
  EXPECT_EQ(s.max_seq_len, 70);
}

}  // namespace
}  // namespace qsa
