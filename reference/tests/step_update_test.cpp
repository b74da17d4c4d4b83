// The reference step update (SPEC 5) on hand-checked cases. Each case pins which members a
// group pools, at which position it is rotated, which slot it lands in, and what the ring holds
// afterwards; expected rows are built from the tested numeric building blocks (step_fixture.hpp).

#include <gtest/gtest.h>

#include "qsa/reference/step_update.hpp"
#include "step_fixture.hpp"

namespace qsa {
namespace {

using testing::StepCase;

StepOutput run(StepCase& c, std::vector<reference::PooledGroup>* pooled = nullptr) {
  StepOutput out = make_poisoned_step_output(c.in);
  Error error;
  const Status status = reference::step_update(c.in, &c.caches, &out, &error, pooled);
  EXPECT_EQ(status, Status::kOk) << error;
  return out;
}

std::vector<uint8_t> zeros(const StepCase& c) {
  return std::vector<uint8_t>(static_cast<size_t>(c.in.config.head_dim * c.caches.compressed.layout.element_bytes), 0);
}

TEST(StepUpdateReference, DecodeClosesAGroupWhoseEarlierMembersAreAllInTheRing) {
  // A group can never be pooled wholly from the ring (its closing row is in the chunk), so the
  // "entirely from the ring" case is a decode of one row whose C - 1 earlier members are there.
  StepCase c({{7, 1}}, 0, /*C*/ 4, /*S*/ 2, /*R*/ 8, {{5}}, {{3}}, 8, 4);
  for (int64_t p = 4; p < 7; ++p) c.put_ring(3, 0, p);
  run(c);
  // Group 1 (positions 4..7) is row 1 of logical block 0 -> slot 5·2 + 1.
  EXPECT_EQ(c.compressed_row(11),
            c.expected_compressed({c.key_of(0, 4), c.key_of(0, 5), c.key_of(0, 6), c.key_of(0, 7)}, {4, 4, 4}));
  EXPECT_EQ(c.ring_key(3 * 8 + 7), c.key_of(0, 7));
}

TEST(StepUpdateReference, GroupStraddlingTheRingAndTheChunk) {
  StepCase c({{2, 4}}, 0, 4, 2, 8, {{5}}, {{1}}, 8, 4);
  c.put_ring(1, 0, 0);
  c.put_ring(1, 0, 1);
  run(c);
  EXPECT_EQ(c.compressed_row(10),
            c.expected_compressed({c.key_of(0, 0), c.key_of(0, 1), c.key_of(0, 2), c.key_of(0, 3)}, {0, 0, 0}));
  EXPECT_EQ(c.compressed_row(11), zeros(c));  // group 1 (4..7) does not close: e = 6
  for (int64_t p = 2; p < 6; ++p) EXPECT_EQ(c.ring_key(8 + p), c.key_of(0, p)) << p;
}

TEST(StepUpdateReference, PrefillOfSeveralGroupsAcrossCompressedBlocks) {
  StepCase c({{0, 12}}, 0, 4, 2, 8, {{5, 6}}, {{0}}, 8, 4);
  run(c);
  // Groups 0, 1, 2 -> (block 5, row 0), (block 5, row 1), (block 6, row 0).
  const int64_t slots[3] = {10, 11, 12};
  for (int64_t g = 0; g < 3; ++g) {
    std::vector<std::vector<Bf16>> members;
    for (int64_t m = 4 * g; m < 4 * g + 4; ++m) members.push_back(c.key_of(0, m));
    EXPECT_EQ(c.compressed_row(slots[g]), c.expected_compressed(members, {4 * g, 4 * g, 4 * g})) << g;
  }
  for (int64_t p = 4; p < 12; ++p) EXPECT_EQ(c.ring_key(p % 8), c.key_of(0, p)) << p;  // the last R rows
}

TEST(StepUpdateReference, DecodeThatClosesNoGroupOnlyCommitsItsRow) {
  StepCase c({{5, 1}}, 0, 4, 2, 8, {{5}}, {{2}}, 8, 4);
  const CacheBytes compressed_before = c.caches.compressed.bytes;
  run(c);
  EXPECT_EQ(c.caches.compressed.bytes, compressed_before);
  EXPECT_EQ(c.ring_key(2 * 8 + 5), c.key_of(0, 5));
}

TEST(StepUpdateReference, DecodeWithDraftsClosesAGroupWithTheFirstMemberInTheRing) {
  // 1 + 3 drafts at positions 5..8: group 1 (4..7) takes member 4 from the ring.
  StepCase c({{5, 4}}, 0, 4, 2, 8, {{5}}, {{1}}, 8, 4);
  c.put_ring(1, 0, 4);
  run(c);
  EXPECT_EQ(c.compressed_row(11),
            c.expected_compressed({c.key_of(0, 4), c.key_of(0, 5), c.key_of(0, 6), c.key_of(0, 7)}, {4, 4, 4}));
  for (int64_t p = 5; p < 9; ++p) EXPECT_EQ(c.ring_key(8 + p % 8), c.key_of(0, p)) << p;
  EXPECT_EQ(c.ring_key(8 + 4), c.key_of(0, 4));  // the open group's committed member survives
}

TEST(StepUpdateReference, PrefillLongerThanTheRingCommitsOnlyTheSuffix) {
  StepCase c({{0, 20}}, 0, 4, 2, 8, {{5, 6, 7}}, {{2}}, 8, 4);
  std::vector<reference::PooledGroup> pooled;
  run(c, &pooled);
  EXPECT_EQ(pooled.size(), 5u);  // groups 0..4
  for (int64_t row = 0; row < 8; ++row) {
    const int64_t position = 12 + (row - 12 % 8 + 8) % 8;  // the one position in 12..19 with p mod 8 = row
    EXPECT_EQ(c.ring_key(2 * 8 + row), c.key_of(0, position)) << row;
  }
}

TEST(StepUpdateReference, MropeGroupPositionComesFromTheRingTail) {
  StepCase c({{2, 2}, {0, 4}}, 0, 4, 2, 8, {{5}, {6}}, {{1}, {2}}, 8, 4, /*ring_positions*/ true);
  c.in.config.mrope_sections = std::array<int64_t, 3>{2, 1, 1};
  // Three-axis positions for the step's rows: (p, p + 20, p + 30).
  const int64_t n = c.in.num_tokens();
  c.in.position_axes = 3;
  c.in.positions.assign(static_cast<size_t>(3 * n), 0);
  for (int64_t t = 0; t < n; ++t)
    for (int64_t axis = 0; axis < 3; ++axis)
      c.in.positions[axis * n + t] = c.origin(t).second + (axis == 0 ? 0 : 10 + 10 * axis);
  c.put_ring(1, 0, 0, {5, 9, 13});
  c.put_ring(1, 0, 1, {6, 10, 14});
  run(c);
  // Request 0: the first member (position 0) is in the ring, so its tail (5, 9, 13) is used.
  EXPECT_EQ(c.compressed_row(10),
            c.expected_compressed({c.key_of(0, 0), c.key_of(0, 1), c.key_of(0, 2), c.key_of(0, 3)}, {5, 9, 13}));
  // Request 1: the first member is this step's row 2, at (0, 20, 30).
  EXPECT_EQ(c.compressed_row(12),
            c.expected_compressed({c.key_of(1, 0), c.key_of(1, 1), c.key_of(1, 2), c.key_of(1, 3)}, {0, 20, 30}));
  // The commit writes the tails of this step's rows.
  EXPECT_EQ(c.ring_tail(1 * 8 + 3), (std::array<int64_t, 3>{3, 23, 33}));
  EXPECT_EQ(c.ring_tail(2 * 8 + 2), (std::array<int64_t, 3>{2, 22, 32}));
}

TEST(StepUpdateReference, Fp8StoresTheE4m3OfTheBf16Rows) {
  StepCase c({{0, 8}}, 0, 4, 2, 8, {{5}}, {{0}}, 8, 4, false, StoreDtype::kFp8E4m3);
  c.key_value = [](int64_t, int64_t p, int64_t d) {
    return static_cast<float>(d * 40) - 600.0f + static_cast<float>(p);
  };
  c.fill_rows();
  const StepOutput out = run(c);
  std::vector<std::vector<Bf16>> members;
  for (int64_t m = 0; m < 4; ++m) members.push_back(c.key_of(0, m));
  const std::vector<uint8_t> expected = c.expected_compressed(members, {0, 0, 0});
  ASSERT_EQ(expected.size(), 32u);  // one byte per element
  EXPECT_EQ(c.compressed_row(10), expected);
  EXPECT_EQ(out.q_out.size(), static_cast<size_t>(8 * 2 * 32));
}

TEST(StepUpdateReference, PaddingRowsWriteNothingButGetQueries) {
  StepCase c({{0, 4}}, /*padding*/ 3, 4, 2, 8, {{5}}, {{1}}, 8, 4);
  CacheBytes ring_expected = c.caches.ring.bytes;
  CacheBytes compressed_expected = c.caches.compressed.bytes;
  const StepOutput out = run(c);
  for (int64_t p = 0; p < 4; ++p) {
    const std::vector<Bf16> k = c.key_of(0, p);
    std::memcpy(ring_expected.data() + c.caches.ring.layout.byte_offset(8 + p, 0), k.data(), 64);
  }
  const std::vector<uint8_t> row =
      c.expected_compressed({c.key_of(0, 0), c.key_of(0, 1), c.key_of(0, 2), c.key_of(0, 3)}, {0, 0, 0});
  std::copy(row.begin(), row.end(), compressed_expected.begin() + c.caches.compressed.layout.byte_offset(10, 0));
  EXPECT_EQ(c.caches.ring.bytes, ring_expected);
  EXPECT_EQ(c.caches.compressed.bytes, compressed_expected);
  for (size_t i = 4 * 2 * 32 * 2; i < out.q_out.size(); ++i)
    ASSERT_NE(out.q_out[i], kPoisonByte) << "padding q_out byte " << i;
}

TEST(StepUpdateReference, QPathNormsAndRotatesEveryHeadOfEveryRow) {
  StepCase c({{3, 2}, {10, 1}}, 2, 4, 2, 8, {{5}, {6}}, {{1}, {2}}, 8, 4);
  const StepOutput out = run(c);
  const int64_t d = c.in.config.head_dim;
  for (int64_t t = 0; t < c.in.num_tokens(); ++t) {
    for (int64_t h = 0; h < c.in.config.num_heads; ++h) {
      std::vector<Bf16> row(static_cast<size_t>(d));
      rms_norm(c.in.queries.data() + (t * c.in.config.num_heads + h) * d, c.in.config.w_q.data(), d, c.in.config.eps,
               row.data());
      rope_neox(row.data(), d, c.in.config.rotary_dim, c.in.row_positions(t), c.in.config.mrope_sections,
                c.in.config.cos_sin_data());
      const std::vector<uint8_t> expected = c.to_store(row);
      const std::vector<uint8_t> actual(out.q_out.begin() + (t * c.in.config.num_heads + h) * d * 2,
                                        out.q_out.begin() + (t * c.in.config.num_heads + h + 1) * d * 2);
      EXPECT_EQ(actual, expected) << "row " << t << " head " << h;
    }
  }
}

TEST(StepUpdateReference, StreamingExampleFromUpstream) {
  // Upstream's streaming test with k[r][p][d] = d + 1000·r + 10·p (D = 32 here: SPEC 1.4 needs
  // D >= 32; the first 8 elements are upstream's), ring of 4 rows, C = 4:
  // request 0 has positions 0..1 in ring block 1 and a chunk of positions 2..8;
  // request 1 has position 4 in ring block 0 and a chunk of positions 5..10.
  StepCase c({{2, 7}, {5, 6}}, 0, /*C*/ 4, /*S*/ 4, /*R*/ 4, {{2}, {3}}, {{1}, {0}}, 4, 2);
  c.put_ring(1, 0, 0);
  c.put_ring(1, 0, 1);
  c.put_ring(0, 1, 4);
  std::vector<reference::PooledGroup> pooled;
  run(c, &pooled);
  ASSERT_EQ(pooled.size(), 3u);
  const std::pair<int64_t, int64_t> groups[3] = {{0, 0}, {0, 1}, {1, 1}};  // first positions 0, 4, 4
  for (size_t i = 0; i < 3; ++i) {
    const auto [request, group] = groups[i];
    EXPECT_EQ(pooled[i].request, request);
    EXPECT_EQ(pooled[i].group, group);
    std::vector<Bf16> expected(32);
    std::vector<std::vector<Bf16>> members;
    for (int64_t m = 4 * group; m < 4 * group + 4; ++m) members.push_back(c.key_of(request, m));
    const Bf16* ptrs[4] = {members[0].data(), members[1].data(), members[2].data(), members[3].data()};
    pool_group(ptrs, 4, 32, expected.data());
    EXPECT_EQ(pooled[i].value, expected) << "group " << i;
    // The pooled mean of element 0 is 1000·r + 10·(4g + 1.5): the members are the right ones.
    EXPECT_EQ(float_from_bf16(pooled[i].value[0]),
              float_from_bf16(
                  bf16_from_float(1000.0f * static_cast<float>(request) + 40.0f * static_cast<float>(group) + 15.0f)));
  }
  // After the commit: positions 5..8 of request 0 in block 1, 7..10 of request 1 in block 0.
  for (int64_t p = 5; p <= 8; ++p) EXPECT_EQ(c.ring_key(1 * 4 + p % 4), c.key_of(0, p)) << p;
  for (int64_t p = 7; p <= 10; ++p) EXPECT_EQ(c.ring_key(0 * 4 + p % 4), c.key_of(1, p)) << p;
}

TEST(StepUpdateReference, GroupReadsTheRingAsItWasBeforeTheStep) {
  // R = 4: the chunk 3..6 commits positions 3..6 to rows 3, 0, 1, 2, overwriting the rows that
  // hold positions 0..2, which group 0 reads in the same step.
  StepCase c({{3, 4}}, 0, 4, 4, 4, {{1}}, {{0}}, 4, 2);
  for (int64_t p = 0; p < 3; ++p) c.put_ring(0, 0, p);
  run(c);
  EXPECT_EQ(c.compressed_row(4),
            c.expected_compressed({c.key_of(0, 0), c.key_of(0, 1), c.key_of(0, 2), c.key_of(0, 3)}, {0, 0, 0}));
  EXPECT_EQ(c.ring_key(0), c.key_of(0, 4));  // row 0 now holds position 4
}

TEST(StepUpdateReference, GroupPositionOutsideTheTableIsSkippedAndReported) {
  StepCase c({{2, 2}, {0, 4}}, 0, 4, 2, 8, {{5}, {6}}, {{1}, {2}}, 8, 4, /*ring_positions*/ true);
  c.put_ring(1, 0, 0, {70, 0, 0});  // t = 70 >= max_position = 64
  c.put_ring(1, 0, 1);
  const StepOutput out = run(c);
  EXPECT_EQ(out.step_status, StepStatus::kPositionOutOfRange);
  EXPECT_EQ(c.compressed_row(10), zeros(c));  // skipped
  EXPECT_EQ(c.compressed_row(12),
            c.expected_compressed({c.key_of(1, 0), c.key_of(1, 1), c.key_of(1, 2), c.key_of(1, 3)}, {0, 0, 0}));
  EXPECT_EQ(c.ring_key(8 + 2), c.key_of(0, 2));  // the commit still happens
}

TEST(StepUpdateReference, MissingRingBlockReadsZerosAndSlotsPastTheCacheAreSkipped) {
  // Request 0: ring block -1, so members 0 and 1 read as zeros and nothing is committed.
  // Request 1: compressed block 100 and ring block 50 lie past their caches: nothing is written.
  StepCase c({{2, 2}, {2, 2}}, 0, 4, 2, 8, {{5}, {100}}, {{-1}, {50}}, 8, 4);
  const CacheBytes ring_before = c.caches.ring.bytes;
  run(c);
  const std::vector<Bf16> zero(32, 0);
  EXPECT_EQ(c.compressed_row(10), c.expected_compressed({zero, zero, c.key_of(0, 2), c.key_of(0, 3)}, {0, 0, 0}));
  EXPECT_EQ(c.caches.ring.bytes, ring_before);
  int64_t written_rows = 0;
  for (int64_t slot = 0; slot < 16; ++slot) written_rows += c.compressed_row(slot) != zeros(c);
  EXPECT_EQ(written_rows, 1);
}

TEST(StepUpdateReference, InvalidInputChangesNothing) {
  StepCase c({{0, 4}}, 0, 4, 2, 8, {{5}}, {{1}}, 8, 4);
  c.in.config.head_dim = 48;
  const StepCaches before = c.caches;
  StepOutput out = make_poisoned_step_output(c.in);
  const std::vector<uint8_t> q_before = out.q_out;
  Error error;
  EXPECT_EQ(reference::step_update(c.in, &c.caches, &out, &error), Status::kInvalidInput);
  EXPECT_EQ(error.field, "head_dim");
  EXPECT_EQ(c.caches.ring.bytes, before.ring.bytes);
  EXPECT_EQ(c.caches.compressed.bytes, before.compressed.bytes);
  EXPECT_EQ(out.q_out, q_before);
}

}  // namespace
}  // namespace qsa
