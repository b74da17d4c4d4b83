// The step-edges workload and the scenario options it sets: what each produces, checked
// against SPEC 1.1 and 4 and against the input-space counter's classes.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "qsa/engine/input_space_coverage.hpp"
#include "qsa/traces/scenario_file.hpp"
#include "qsa/engine/scenario_runner.hpp"
#include "qsa/traces/scenario_state.hpp"
#include "qsa/traces/simulator.hpp"

namespace qsa::traces {
namespace {

constexpr int64_t kSteps = 16;            // the default campaign's step-edges scenarios
constexpr uint64_t kFirstSeed = 1000003;  // the campaign's seeds at --seed 1; eight in turn take every member

Scenario member_scenario(uint64_t i) { return simulate(workload_by_name("step-edges"), kFirstSeed + i, kSteps); }

// The coverage of every step input of one scenario, as the campaign counts it.
engine::InputSpaceCoverage step_coverage(const Scenario& s) {
  ScenarioState state(s.config);
  engine::InputSpaceCoverage coverage;
  for (size_t i = 0; i < s.steps.size(); ++i) {
    const StepInput in = state.step_input(s.steps[i], static_cast<int64_t>(i));
    coverage.add_step(in, compressed_cache_layout(s.config), ring_cache_layout(s.config));
    state.apply(s.steps[i], static_cast<int64_t>(i));
  }
  return coverage;
}

std::string member_name(const Scenario& s) { return s.config.workload; }

TEST(StepEdges, EightSeedsInTurnTakeEveryMember) {
  std::set<std::string> members;
  for (uint64_t i = 0; i < 8; ++i) members.insert(member_name(member_scenario(i)));
  EXPECT_EQ(members.size(), 8u);
}

TEST(StepEdges, EveryStepClassIsReachedByTheCampaignSeeds) {
  engine::InputSpaceCoverage total;
  for (uint64_t i = 0; i < 8; ++i) total += step_coverage(member_scenario(i));
  using I = engine::InputClassId;
  for (I id : {I::kAllPadding,
               I::kZeroLengthRequestInside,
               I::kPrefillBeforeDecode,
               I::kBlockTableColumnMajor,
               I::kBlockTableColumnSlice,
               I::kBlockTableRowsBeyondRequests,
               I::kMissingCompressedBlock,
               I::kMissingCompressedColumn,
               I::kMissingRingBlock,
               I::kRingBlockPastCache,
               I::kCompressedCacheRowStridePadded,
               I::kCompressedCacheBlockStridePadded,
               I::kRingCacheRowStridePadded,
               I::kRingCacheBlockStridePadded,
               I::kEpsSubnormal,
               I::kEpsAtLeastOne,
               I::kEpsMaxFinite,
               I::kWeightNan,
               I::kWeightNegativeInfinity,
               I::kWeightNegativeZero,
               I::kRotaryDimFull})
    EXPECT_GT(total.at(id).steps, 0) << engine::input_class(id).id
                                     << " (replay: qsacheck simulate --workload step-edges --seed " << kFirstSeed
                                     << ".." << kFirstSeed + 7 << ")";
  for (I id : {I::kRotaryDim, I::kNumHeads, I::kMaxPosition, I::kPosition})
    EXPECT_TRUE(total.missed_edges(id).empty()) << engine::input_class(id).id;
}

TEST(StepEdges, StridedTablesAndLongSlotMappingsHoldTheDenseEntries) {
  for (BlockTableLayout layout : {BlockTableLayout::kColumnMajor, BlockTableLayout::kColumnSlice}) {
    Scenario s = member_scenario(0);
    s.config.block_table_extra_rows = 5;
    s.config.slot_mapping_extra = 3;
    ScenarioConfig plain = s.config;
    plain.block_table_layout = BlockTableLayout::kRows;
    plain.block_table_extra_rows = 0;
    plain.slot_mapping_extra = 0;
    s.config.block_table_layout = layout;
    ScenarioState strided(s.config), dense(plain);
    for (size_t i = 0; i < s.steps.size(); ++i) {
      const StepInput a = strided.step_input(s.steps[i], static_cast<int64_t>(i));
      const StepInput b = dense.step_input(s.steps[i], static_cast<int64_t>(i));
      for (const auto& [got, want] :
           {std::pair{&a.block_table, &b.block_table}, {&a.ring_block_table, &b.ring_block_table}}) {
        ASSERT_TRUE(got->is_well_formed());
        EXPECT_EQ(got->rows, want->rows + 5);  // the rows past NR of a table sized for max_num_seqs
        EXPECT_EQ(got->cols, want->cols);
        if (layout == BlockTableLayout::kColumnMajor) {
          EXPECT_EQ(got->row_stride, 1);
        } else {
          EXPECT_GT(got->row_stride, got->cols);  // a column slice: a view of a wider table
        }
        // Requests with rows; padded requests' rows hold stale ids (content version 3), drawn in
        // the storage's order.
        for (int64_t j = 0; j < want->rows; ++j)
          for (int64_t c = 0; c < want->cols && b.batch.query_len(j) > 0; ++c)
            ASSERT_EQ(got->at(j, c), want->at(j, c)) << to_string(layout);
      }
      // The slot mapping: its first N entries as the dense step's, then 3 past N.
      ASSERT_EQ(a.batch.common_slot_mapping.size(), b.batch.common_slot_mapping.size() + 3);
      EXPECT_TRUE(std::equal(b.batch.common_slot_mapping.begin(), b.batch.common_slot_mapping.end(),
                             a.batch.common_slot_mapping.begin()));
      strided.apply(s.steps[i], static_cast<int64_t>(i));
      dense.apply(s.steps[i], static_cast<int64_t>(i));
    }
  }
}

TEST(StepEdges, PaddedCachesAddressSlotsPastThePadding) {
  ScenarioConfig c;
  for (uint64_t i = 0; i < 8 && c.compressed_row_pad == 0; ++i) c = member_scenario(i).config;
  ASSERT_GT(c.compressed_row_pad, 0);
  const CacheLayout l = compressed_cache_layout(c);
  const int64_t s = c.storage_block_size();
  EXPECT_EQ(l.row_stride, c.head_dim + c.compressed_row_pad);
  EXPECT_EQ(l.block_stride, s * l.row_stride + c.compressed_block_pad);
  // SPEC 4: slot x is block x / S, row x mod S.
  const int64_t slot = 2 * s + 1;
  EXPECT_EQ(l.byte_offset(slot, 3), (2 * l.block_stride + l.row_stride + 3) * l.element_bytes);
  const CacheLayout r = ring_cache_layout(c);
  EXPECT_EQ(r.row_stride, r.width + c.ring_row_pad);
  EXPECT_EQ(r.block_stride, c.ring_capacity * r.row_stride + c.ring_block_pad);
}

TEST(StepEdges, ShapedStepsKeepTheRulesTheyDoNotBreak) {
  for (uint64_t i = 0; i < 8; ++i) {
    const Scenario s = member_scenario(i);
    for (size_t k = 0; k < s.steps.size(); ++k) {
      const StepRecord& st = s.steps[k];
      const std::string where = member_name(s) + " step " + std::to_string(k);
      for (size_t x = 0; x < st.chunks.size(); ++x) {
        const ChunkRecord& ch = st.chunks[x];
        // A zero-length chunk only waits: it neither rejects nor changes what the request holds.
        if (ch.length == 0) {
          EXPECT_EQ(ch.accepted, 0) << where;
        }
        // A ring block goes missing only on the request's last step (nothing reads that ring again).
        if (ch.ring_block < 0 || ch.ring_block >= s.config.num_ring_blocks) {
          const bool last = std::count(st.finished.begin(), st.finished.end(), ch.request) +
                                std::count(st.preempted.begin(), st.preempted.end(), ch.request) >
                            0;
          EXPECT_TRUE(last) << where << " request " << ch.request;
          EXPECT_TRUE(ch.ring_block == -1 || ch.ring_block >= kFarBlockFloor) << where;
        }
        // Positions stay inside the RoPE table (text models: the logical position).
        EXPECT_LE(ch.start + ch.length + (s.config.mrope ? 64 : 0), s.config.max_position) << where;
      }
    }
  }
}

TEST(StepEdges, NewConfigFieldsRoundTripThroughTheScenarioFile) {
  for (uint64_t i = 0; i < 8; ++i) {
    const Scenario s = member_scenario(i);
    std::stringstream file;
    write_scenario(file, s);
    const ScenarioFile back = read_scenario(file);
    EXPECT_TRUE(back.scenario.config == s.config) << member_name(s);
    EXPECT_EQ(back.scenario.config.block_table_layout, s.config.block_table_layout);
    EXPECT_EQ(back.scenario.config.ring_block_pad, s.config.ring_block_pad);
    EXPECT_EQ(back.scenario.config.special_weights, s.config.special_weights);
    EXPECT_EQ(back.scenario.config.eps, s.config.eps);
  }
}

}  // namespace
}  // namespace qsa::traces
