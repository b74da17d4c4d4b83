// The extreme batches (traces/extreme_batches.hpp): each is valid, the reference builds it with
// every SPEC 7.4 invariant holding, passthrough copies their int64 slots whole, and together they
// hit the range edges of the inventory that random draws cannot afford.

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "qsa/invariants.hpp"
#include "qsa/reference/metadata.hpp"
#include "qsa/traces/extreme_batches.hpp"
#include "qsa/engine/input_space_coverage.hpp"
#include "qsa/validate.hpp"

namespace qsa::traces {
namespace {

TEST(ExtremeBatches, EachIsValidAndTheReferenceKeepsEveryInvariant) {
  std::set<std::string> names;
  for (int64_t k = 0; k < kNumExtremeBatches; ++k) {
    const ExtremeBatch e = extreme_metadata_batch(k);
    EXPECT_TRUE(names.insert(e.name).second) << "two batches named " << e.name;
    Error error;
    ASSERT_EQ(validate(e.input, &error), Status::kOk) << e.name << ": " << error;
    MetadataOutput out = make_poisoned_metadata_output(e.input);
    ASSERT_EQ(reference::build_metadata(e.input, &out, &error), Status::kOk) << e.name << ": " << error;
    const auto violation = check_metadata_invariants(e.input, out);
    EXPECT_FALSE(violation.has_value()) << e.name << ": " << (violation ? to_string(*violation) : "");
    if (e.input.cache.kind != CacheKind::kPassthrough) continue;
    for (int64_t t = 0; t < e.input.batch.num_actual_tokens; ++t) {  // SPEC 2: the common slot, whole
      const int64_t common = e.input.batch.common_slot_mapping[static_cast<size_t>(t)];
      ASSERT_EQ(out.slot_mapping[static_cast<size_t>(t)], common < 0 ? -1 : common) << e.name << " row " << t;
    }
  }
  EXPECT_THROW(extreme_metadata_batch(kNumExtremeBatches), std::out_of_range);
}

// The edges each batch exists for, by the inventory's own bounds.
TEST(ExtremeBatches, TogetherTheyHitTheFarEdgesOfTheInventory) {
  engine::InputSpaceCoverage coverage;
  for (int64_t k = 0; k < kNumExtremeBatches; ++k) coverage.add_batch(extreme_metadata_batch(k).input);
  using I = engine::InputClassId;
  for (I id : {I::kNumActualTokens, I::kNumRequests, I::kNumMappedTokens, I::kPaddingRows, I::kQueryLen,
               I::kReorderBatchThreshold, I::kRequestCapacity, I::kRingCapacity, I::kCommonSlot}) {
    const engine::InputClassCount& c = coverage.at(id);
    EXPECT_TRUE(c.edges[2] && c.edges[3]) << engine::input_class(id).id << ": hi - 1 and hi (" << engine::input_class(id).hi
                                          << "), reached up to " << c.max;
  }
  EXPECT_TRUE(coverage.at(I::kChunkStart).edges[3]) << "a chunk start of " << engine::input_class(I::kChunkStart).hi;
  EXPECT_TRUE(coverage.at(I::kSeqLen).edges[3]);
  EXPECT_TRUE(coverage.at(I::kCommonSlotNegative).edges[0] && coverage.at(I::kCommonSlotNegative).edges[1]);
  EXPECT_TRUE(coverage.at(I::kBlockIdNegative).edges[0] && coverage.at(I::kBlockIdNegative).edges[1]);
  EXPECT_TRUE(coverage.at(I::kBlockId).edges[3]);
  EXPECT_GT(coverage.at(I::kCommonSlotMappingLongerThanN).count, 0);
}

}  // namespace
}  // namespace qsa::traces
