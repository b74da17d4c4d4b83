// The input-space inventory (input_space.hpp) and its counter (input_space_coverage.hpp) on
// hand-built inputs whose counts are known from their construction, and the committed page
// docs/input-space.md against the one the table generates.

#include <cstdint>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "qsa/engine/input_space.hpp"
#include "qsa/engine/input_space_coverage.hpp"

namespace qsa::engine {
namespace {

using I = InputClassId;

// A passthrough batch: `qsl`, `seq_lens`, N, common slots -1 on padding and 7 on real rows.
MetadataInput passthrough(std::vector<int64_t> qsl, std::vector<int64_t> seq_lens, int64_t n) {
  MetadataInput in;
  in.cache.kind = CacheKind::kPassthrough;
  in.batch.query_start_loc = std::move(qsl);
  in.batch.seq_lens = std::move(seq_lens);
  in.batch.num_actual_tokens = n;
  for (int64_t t = 0; t < n; ++t) in.batch.common_slot_mapping.push_back(t < in.batch.num_mapped_tokens() ? 7 : -1);
  in.block_table = BlockTable::from_rows(std::vector<std::vector<int32_t>>(in.batch.seq_lens.size(), {0}));
  return in;
}

// One request of one row (position p), D = 32, rd = 16, one head, max_position 8, on caches of
// 4 blocks: the smallest valid step.
StepInput one_row_step(int64_t position) {
  StepInput in;
  StepConfig& c = in.config;
  c.compress_ratio = 4;
  c.storage_block_size = 4;
  c.ring_capacity = 8;
  c.head_dim = 32;
  c.rotary_dim = 16;
  c.num_heads = 1;
  c.max_position = 8;
  c.w_k.assign(32, 0x3F80);  // 1.0
  c.w_q.assign(32, 0x3F80);
  in.batch.query_start_loc = {0, 1};
  in.batch.seq_lens = {position + 1};
  in.batch.num_actual_tokens = 1;
  in.batch.common_slot_mapping = {-1};
  in.block_table = BlockTable::from_rows({{0}});
  in.ring_block_table = BlockTable::from_rows({{0}});
  in.keys.assign(32, 0x3F80);
  in.queries.assign(32, 0x3F80);
  in.positions = {position};
  return in;
}

TEST(InputSpaceTable, RowsAreUniqueNamedRangedAndCoverTheSpecSections) {
  std::set<std::string> ids;
  std::set<std::string> clauses;
  for (const InputClass& row : input_classes()) {
    EXPECT_TRUE(ids.insert(row.id).second) << row.id << " twice";
    EXPECT_EQ(std::string(row.id).find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_"), std::string::npos)
        << row.id << " is not snake_case";
    EXPECT_STRNE(row.clause, "") << row.id;
    EXPECT_STRNE(row.legal, "") << row.id;
    if (row.values != ValueSet::kClass) {
      EXPECT_LE(row.lo, row.hi) << row.id;
      EXPECT_TRUE(edge_is_legal(row, 0)) << row.id << ": lo must be legal";
    }
    std::stringstream list(row.clause);
    for (std::string clause; std::getline(list, clause, ',');)
      clauses.insert(clause.substr(clause.find_first_not_of(' ')));
  }
  // Issue 18: every parameter of SPEC 1.3, 1.4, 4, 5 and 6 appears.
  for (const char* section : {"1.3", "1.4", "4", "5", "6"}) {
    bool found = false;
    for (const std::string& c : clauses) found |= c == section || c.rfind(std::string(section) + ".", 0) == 0;
    EXPECT_TRUE(found) << "no row cites SPEC " << section;
  }
}

TEST(InputSpaceTable, EdgesArePerValueSet) {
  const InputClass& d = input_class(I::kHeadDim);  // powers of two in [32, 512]
  EXPECT_TRUE(edge_is_legal(d, 0));
  EXPECT_FALSE(edge_is_legal(d, 1)) << "33 is no head dim";
  EXPECT_FALSE(edge_is_legal(d, 2)) << "511 is no head dim";
  EXPECT_TRUE(edge_is_legal(d, 3));
  const InputClass& rd = input_class(I::kRotaryDim);  // even in [2, 512]
  EXPECT_FALSE(edge_is_legal(rd, 1));
  EXPECT_TRUE(edge_is_legal(rd, 3));
  EXPECT_FALSE(edge_is_legal(input_class(I::kKeyNan), 0)) << "a value class has no edges";
}

TEST(InputSpaceCoverage, OneZeroLengthFirstRequestIsOneHit) {
  InputSpaceCoverage c;
  c.add_batch(passthrough({0, 0, 3}, {0, 3}, 3));
  EXPECT_EQ(c.at(I::kZeroLengthRequestFirst).count, 1);
  EXPECT_EQ(c.at(I::kZeroLengthRequestInside).count, 0);
  EXPECT_EQ(c.at(I::kZeroLengthRequestWithContext).count, 0);
  EXPECT_EQ(c.at(I::kPaddedRequestsAtTail).count, 0) << "the last request has rows";
  EXPECT_EQ(c.at(I::kKindPassthrough).count, 1);
  EXPECT_EQ(c.at(I::kPassthroughRatioOmitted).count, 1);
  EXPECT_EQ(c.at(I::kQueryLen).count, 2) << "one value per request";
  EXPECT_EQ(c.at(I::kQueryLen).min, 0);
  EXPECT_EQ(c.at(I::kQueryLen).max, 3);
  EXPECT_TRUE(c.at(I::kQueryLen).edges[0]) << "q = 0 is lo";
  EXPECT_FALSE(c.at(I::kQueryLen).edges[1]) << "no q = 1";
}

TEST(InputSpaceCoverage, PaddedUniformBatchOfTheSpecExampleTakesRuleThree) {
  // SPEC 8's passthrough example: qsl [0,4,8,12,12], N = 16, T = 4: rule 3, and N = NR * q_0.
  MetadataInput in = passthrough({0, 4, 8, 12, 12}, {68, 68, 68, 0}, 16);
  in.batch.reorder_batch_threshold = 4;
  InputSpaceCoverage c;
  c.add_batch(in);
  EXPECT_EQ(c.at(I::kSplitPaddedUniform).count, 1);
  EXPECT_EQ(c.at(I::kSplitUniformNotNTimesQ0).count, 0);
  EXPECT_EQ(c.at(I::kPaddedRequestsAtTail).count, 1);
  EXPECT_EQ(c.at(I::kTokenOnlyPadding).count, 0);
  EXPECT_EQ(c.at(I::kCommonSlotNegative).count, 4) << "the four padding rows";
  EXPECT_TRUE(c.at(I::kCommonSlotNegative).edges[3]) << "-1 is hi";
  // The same with two more padding rows: N != NR * q_0.
  InputSpaceCoverage more;
  more.add_batch(passthrough({0, 4, 8, 12, 12}, {68, 68, 68, 0}, 18));
  EXPECT_EQ(more.at(I::kSplitUniformNotNTimesQ0).count, 0) << "T = 1 here: rule 2 (q_0 = 4 > T)";
  EXPECT_EQ(more.at(I::kSplitFirstRequestPrefill).count, 1);
}

TEST(InputSpaceCoverage, Int32AndInt64ExtremesHitTheirEdges) {
  MetadataInput in = passthrough({0, 1, 2}, {1, 1}, 2);
  in.cache.kind = CacheKind::kCompressed;
  in.cache.compress_ratio = 2;
  in.cache.storage_block_size = 1;
  in.block_table =
      BlockTable::from_rows({{std::numeric_limits<int32_t>::max()}, {std::numeric_limits<int32_t>::min()}});
  in.batch.common_slot_mapping = {std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()};
  InputSpaceCoverage c;
  c.add_batch(in);
  EXPECT_EQ(c.at(I::kBlockId).count, 1);
  EXPECT_TRUE(c.at(I::kBlockId).edges[3]) << "INT32_MAX is the block id's hi";
  EXPECT_FALSE(c.at(I::kBlockId).edges[2]);
  EXPECT_TRUE(c.at(I::kBlockIdNegative).edges[0]) << "INT32_MIN is the negative block id's lo";
  EXPECT_TRUE(c.at(I::kCommonSlot).edges[3]) << "INT64_MAX";
  EXPECT_TRUE(c.at(I::kCommonSlotNegative).edges[0]) << "INT64_MIN";
  EXPECT_EQ(c.at(I::kNegativeCommonSlotOnRealRow).count, 1);
  EXPECT_EQ(c.at(I::kChunkWithoutClosingGroup).count, 2) << "s = 0, e = 1, C = 2: no group closes";
  EXPECT_EQ(c.at(I::kKindCompressed).count, 1);
  EXPECT_EQ(c.at(I::kRequestCapacityOmitted).count, 1);
  const std::vector<std::string> missed = c.missed_edges(I::kBlockId);
  EXPECT_EQ(missed, (std::vector<std::string>{"lo", "lo+1", "hi-1"}));
}

TEST(InputSpaceCoverage, AnInvalidBatchCountsOnlyItsRule) {
  MetadataInput in = passthrough({0, 2, 3}, {2, 1}, 3);
  in.batch.query_start_loc[0] = 1;
  InputSpaceCoverage c;
  c.add_batch(in);
  EXPECT_EQ(c.at(invalid_rule_class(Rule::kQueryStartLocNonzeroStart)).count, 1);
  EXPECT_EQ(c.at(I::kNumActualTokens).count, 0) << "an invalid batch's values are not legal values";
  EXPECT_EQ(c.reached_rows(), 1);
}

TEST(InputSpaceCoverage, SpecialValuesAreCountedPerElement) {
  StepInput in = one_row_step(0);
  in.keys[1] = 0x7FC0;      // NaN
  in.keys[2] = 0x7F80;      // +inf
  in.keys[3] = 0xFF80;      // -inf
  in.keys[4] = 0x0001;      // the smallest subnormal
  in.keys[5] = 0x8000;      // -0
  in.keys[6] = 0x0000;      // +0: no class
  in.config.num_heads = 4;  // 128 query elements: two whole chunks of the scan's 64
  in.queries.assign(128, 0x0000);
  in.queries[100] = 0x8001;   // a negative subnormal among +0s
  in.config.w_q[0] = 0xFFC1;  // a negative NaN
  InputSpaceCoverage c;
  c.add_step(in, CacheLayout::dense(4, 4, 32, 2), CacheLayout::dense(4, 8, 32, 2));
  for (I id : {I::kKeyNan, I::kKeyPositiveInfinity, I::kKeyNegativeInfinity, I::kKeySubnormal, I::kKeyNegativeZero})
    EXPECT_EQ(c.at(id).count, 1) << input_class(id).id;
  EXPECT_EQ(c.at(I::kQuerySubnormal).count, 1);
  EXPECT_EQ(c.at(I::kQueryNan).count, 0);
  EXPECT_EQ(c.at(I::kWeightNan).count, 1);
  EXPECT_EQ(c.at(I::kHeadDim).count, 1);
  EXPECT_TRUE(c.at(I::kHeadDim).edges[0]) << "D = 32 is lo";
  EXPECT_EQ(c.at(I::kRotaryDimPartial).count, 1);
  EXPECT_EQ(c.at(I::kMropeOff).count, 1);
  EXPECT_EQ(c.at(I::kEpsNormalBelowOne).count, 1);
}

TEST(InputSpaceCoverage, PositionAndBlockEdgesAreThoseOfTheInput) {
  // max_position 8: positions 6 and 7 are hi - 1 and hi; 4 blocks: block 3 is hi, block 4 past the cache.
  StepInput last = one_row_step(7);
  last.block_table = BlockTable::from_rows({{3}});
  last.ring_block_table = BlockTable::from_rows({{4}});
  InputSpaceCoverage c;
  c.add_step(last, CacheLayout::dense(4, 4, 32, 2), CacheLayout::dense(4, 8, 32, 2));
  EXPECT_TRUE(c.at(I::kPosition).edges[3]);
  EXPECT_FALSE(c.at(I::kPosition).edges[2]);
  EXPECT_TRUE(c.at(I::kCompressedBlockInCache).edges[3]);
  EXPECT_EQ(c.at(I::kRingBlockPastCache).count, 1);
  EXPECT_EQ(c.at(I::kRingBlockInCache).count, 0);
  EXPECT_EQ(c.at(I::kGroupReachesBackIntoRing).count, 1) << "s = 7, C = 4: group 1 closes at 7 with members 4..6";
  EXPECT_EQ(c.at(I::kCompressedCacheBlockStridePadded).count, 0) << "dense caches";
  CacheLayout paged = CacheLayout::dense(4, 4, 32, 2);
  paged.row_stride = 40;
  paged.block_stride = 4 * 40 + 8;
  c.add_step(last, paged, CacheLayout::dense(4, 8, 32, 2));
  EXPECT_EQ(c.at(I::kCompressedCacheRowStridePadded).count, 1);
  EXPECT_EQ(c.at(I::kCompressedCacheBlockStridePadded).count, 1);
  EXPECT_EQ(c.at(I::kRingCacheRowStridePadded).count, 0);
  c.add_step(one_row_step(6), CacheLayout::dense(4, 4, 32, 2), CacheLayout::dense(4, 8, 32, 2));
  EXPECT_TRUE(c.at(I::kPosition).edges[2]);
  EXPECT_EQ(c.missed_edges(I::kPosition), (std::vector<std::string>{"lo", "lo+1"}));
}

TEST(InputSpaceCoverage, PrefixHitRowsCountTheTrackersClasses) {
  InputSpaceCoverage c;
  traces::PrefixHitCounts h;
  h.hits = 3, h.on_finished = 2, h.deeper_than_one = 1, h.shared_by_live = 1;
  c.add_prefix_hits(h);
  EXPECT_EQ(c.at(I::kPrefixHitOnFinishedRequest).count, 2);
  EXPECT_EQ(c.at(I::kPrefixHitOnFinishedRequest).steps, 2);
  EXPECT_TRUE(c.reached(I::kPrefixHitDeeperThanOneBlock));
  EXPECT_FALSE(c.reached(I::kPrefixHitAfterBlockReuse));
  EXPECT_TRUE(c.reached(I::kPrefixHitSharedByLiveRequests));
}

TEST(InputSpaceCoverage, AClassOfBothScopesNeedsABatchAndAStep) {
  InputSpaceCoverage c;
  c.add_step(one_row_step(0), CacheLayout::dense(4, 4, 32, 2), CacheLayout::dense(4, 8, 32, 2));
  EXPECT_EQ(c.at(I::kQueryLen).count, 1);
  EXPECT_EQ(c.at(I::kQueryLen).steps, 1);
  EXPECT_FALSE(c.reached(I::kQueryLen)) << "no metadata batch yet";
  EXPECT_TRUE(c.reached(I::kHeadDim)) << "a step-only class";
  c.add_batch(passthrough({0, 1}, {1}, 1));
  EXPECT_EQ(c.at(I::kQueryLen).count, 2);
  EXPECT_EQ(c.at(I::kQueryLen).steps, 1);
  EXPECT_TRUE(c.reached(I::kQueryLen));
  EXPECT_TRUE(c.reached(I::kKindPassthrough)) << "a batch-only class";
  EXPECT_EQ(c.at(I::kKindPassthrough).steps, 0);
}

TEST(InputSpaceCoverage, SumsAddCountsAndCombineExtremesAndEdges) {
  InputSpaceCoverage a, b;
  a.add_batch(passthrough({0, 1}, {1}, 1));
  b.add_batch(passthrough({0, 5, 5}, {9, 0}, 7));
  InputSpaceCoverage sum = a;
  sum += b;
  EXPECT_EQ(sum.at(I::kNumActualTokens).count, 2);
  EXPECT_EQ(sum.at(I::kNumActualTokens).min, 1);
  EXPECT_EQ(sum.at(I::kNumActualTokens).max, 7);
  EXPECT_TRUE(sum.at(I::kQueryLen).edges[0]) << "b's zero-length request";
  EXPECT_TRUE(sum.at(I::kQueryLen).edges[1]) << "a's q = 1";
  EXPECT_EQ(sum.at(I::kPaddedRequestsAtTail).count, 1);
  InputSpaceCoverage other_order = b;
  other_order += a;
  EXPECT_EQ(sum, other_order);
}

TEST(InputSpaceCoverage, GapsNameUnreachedClassesThenMissedEdges) {
  InputSpaceCoverage c;
  c.add_batch(passthrough({0, 1}, {1}, 1));
  const std::vector<std::string> gaps = c.gaps();
  ASSERT_FALSE(gaps.empty());
  EXPECT_EQ(gaps.front().rfind("num_actual_tokens: no step input reached it", 0), 0u) << gaps.front();
  EXPECT_EQ(gaps[1].rfind("num_requests: no step input reached it", 0), 0u) << gaps[1];
  EXPECT_EQ(gaps[2].rfind("more_than_1024_requests: never reached", 0), 0u) << gaps[2];
  bool n_edges = false;
  for (const std::string& line : gaps)
    n_edges |= line.rfind("num_actual_tokens: edges lo, hi-1, hi not reached", 0) == 0;
  EXPECT_TRUE(n_edges) << "N = 1 hits lo + 1 only";
}

TEST(InputSpacePage, CommittedPageMatchesTheTable) {
  const std::string path = std::string(QSA_SOURCE_DIR) + "/docs/input-space.md";
  std::ifstream file(path);
  ASSERT_TRUE(file) << path;
  std::stringstream text;
  text << file.rdbuf();
  EXPECT_EQ(text.str(), input_space_markdown())
      << path << " differs from the table: regenerate it with `build/bin/qsacheck input-space > docs/input-space.md`";
}

}  // namespace
}  // namespace qsa::engine
