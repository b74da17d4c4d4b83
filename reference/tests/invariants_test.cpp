// The invariant checkers must reject outputs that break SPEC 7.4: each test corrupts one element
// of a correct output and expects the named invariant to fire.

#include <gtest/gtest.h>

#include "qsa/invariants.hpp"
#include "qsa/reference/metadata.hpp"

namespace qsa {
namespace {

MetadataInput mixed_ring() {
  MetadataInput in;
  in.cache.kind = CacheKind::kRing;
  in.cache.ring_capacity = 4;
  in.batch.query_start_loc = {0, 2, 8};
  in.batch.seq_lens = {12, 6};
  in.batch.num_actual_tokens = 10;
  in.block_table = BlockTable::from_rows({{3}, {5}});
  return in;
}

MetadataInput compressed() {
  MetadataInput in;
  in.cache.kind = CacheKind::kCompressed;
  in.cache.compress_ratio = 2;
  in.cache.storage_block_size = 4;
  in.batch.query_start_loc = {0, 4, 8};
  in.batch.seq_lens = {4, 8};
  in.batch.num_actual_tokens = 9;
  in.batch.common_slot_mapping = {1, 2, 3, 4, 5, 6, 7, 8, -1};
  in.block_table = BlockTable::from_rows({{3}, {5}});
  return in;
}

MetadataOutput build(const MetadataInput& in) {
  MetadataOutput out;
  Error error;
  EXPECT_EQ(reference::build_metadata(in, &out, &error), Status::kOk) << error;
  EXPECT_FALSE(check_metadata_invariants(in, out).has_value());
  return out;
}

std::string fired(const MetadataInput& in, const MetadataOutput& out) {
  const auto v = check_metadata_invariants(in, out);
  return v ? v->invariant : "none";
}

TEST(MetadataInvariants, PaddingRowWithASlotIsCaught) {
  const MetadataInput in = mixed_ring();
  MetadataOutput out = build(in);
  out.slot_mapping[9] = 7;
  EXPECT_EQ(fired(in, out), "padding-inert");
}

TEST(MetadataInvariants, RingSlotOutsideTheSuffixIsCaught) {
  const MetadataInput in = mixed_ring();
  MetadataOutput out = build(in);
  out.slot_mapping[2] = 5 * 4 + 0;  // request 1's first row (position 0); only its last 4 rows keep slots
  EXPECT_EQ(fired(in, out), "ring-slot-suffix");
}

TEST(MetadataInvariants, DuplicateRingSlotInsideARequestIsCaught) {
  const MetadataInput in = mixed_ring();
  MetadataOutput out = build(in);
  out.slot_mapping[7] = out.slot_mapping[6];
  EXPECT_EQ(fired(in, out), "ring-slot-address");
}

TEST(MetadataInvariants, WrongPositionIsCaught) {
  const MetadataInput in = mixed_ring();
  MetadataOutput out = build(in);
  out.logical_positions[7] += 1;
  EXPECT_EQ(fired(in, out), "positions-consecutive");
}

TEST(MetadataInvariants, CompressedSlotOnANonClosingRowIsCaught) {
  const MetadataInput in = compressed();
  MetadataOutput out = build(in);
  out.slot_mapping[0] = 12;
  EXPECT_EQ(fired(in, out), "compressed-slot-closing");
}

TEST(MetadataInvariants, MissingKWorkItemIsCaught) {
  const MetadataInput in = compressed();
  MetadataOutput out = build(in);
  out.k_work_metadata[2] = -1;  // row 1
  out.k_work_metadata[3] = -1;
  EXPECT_EQ(fired(in, out), "k-work-items");
}

TEST(MetadataInvariants, NonSentinelKWorkTailIsCaught) {
  const MetadataInput in = compressed();
  MetadataOutput out = build(in);
  out.k_work_metadata.back() = 0;
  EXPECT_EQ(fired(in, out), "k-work-tail");
}

TEST(MetadataInvariants, VisibleBlocksBeyondThePositionIsCaught) {
  const MetadataInput in = compressed();
  MetadataOutput out = build(in);
  out.visible_blocks[0] += 1;
  EXPECT_EQ(fired(in, out), "visible-blocks");
}

TEST(MetadataInvariants, WrongSplitIsCaught) {
  const MetadataInput in = compressed();
  MetadataOutput out = build(in);
  out.split.num_prefill_tokens += 1;
  EXPECT_EQ(fired(in, out), "split-tokens");
}

}  // namespace
}  // namespace qsa
