// One test per step-update validation rule of SPEC 1.4 (the part after the metadata checks).

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "qsa/validate.hpp"
#include "step_fixture.hpp"

namespace qsa {
namespace {

using testing::StepCase;

StepCase valid_case() { return StepCase({{2, 4}, {0, 3}}, 1, 4, 2, 8, {{5}, {6}}, {{1}, {2}}, 8, 4); }

void expect_error(const StepCase& c, const std::string& field, int64_t index, const std::string& rule) {
  Error e;
  EXPECT_EQ(validate_step(c.in, c.caches, &e), Status::kInvalidInput);
  EXPECT_EQ(e.field, field) << e;
  EXPECT_EQ(e.index, index) << e;
  EXPECT_EQ(e.rule, rule) << e;
}

TEST(ValidateStep, AcceptsTheValidCase) {
  const StepCase c = valid_case();
  Error e;
  EXPECT_EQ(validate_step(c.in, c.caches, &e), Status::kOk) << e;
}

TEST(ValidateStep, MetadataRulesComeFirstAndNameTheRingTable) {
  StepCase c = valid_case();
  c.in.config.head_dim = 48;  // a later rule that must not win
  c.in.batch.query_start_loc = {0, 4, 3};
  expect_error(c, "query_start_loc", 2, "decreasing");
  c = valid_case();
  c.in.ring_block_table = BlockTable::from_rows({{1}});
  expect_error(c, "ring_block_table", -1, "too-few-rows");
  c = valid_case();
  c.in.config.ring_capacity = 0;
  expect_error(c, "ring_capacity", -1, "out-of-range");
}

TEST(ValidateStep, HeadDimMustBeAPowerOfTwoIn32To512) {
  for (int64_t d : {48, 16, 1024}) {
    StepCase c = valid_case();
    c.in.config.head_dim = d;
    expect_error(c, "head_dim", -1, "out-of-range");
  }
}

TEST(ValidateStep, RotaryDimMustBeEvenAndAtMostD) {
  for (int64_t rd : {7, 0, 34}) {
    StepCase c = valid_case();
    c.in.config.rotary_dim = rd;
    expect_error(c, "rotary_dim", -1, "out-of-range");
  }
}

TEST(ValidateStep, MropeSectionsMustSumToHalfTheRotaryDim) {
  StepCase c = valid_case();
  c.in.config.mrope_sections = std::array<int64_t, 3>{2, 1, 2};  // hp = 4
  expect_error(c, "mrope_sections", -1, "wrong-sum");
  c.in.config.mrope_sections = std::array<int64_t, 3>{5, -1, 0};
  expect_error(c, "mrope_sections", 1, "out-of-range");
}

TEST(ValidateStep, NumHeadsMustBePositive) {
  StepCase c = valid_case();
  c.in.config.num_heads = 0;
  expect_error(c, "num_heads", -1, "out-of-range");
}

TEST(ValidateStep, EpsMustBeFiniteAndPositive) {
  for (float eps : {0.0f, -1e-6f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    StepCase c = valid_case();
    c.in.config.eps = eps;
    expect_error(c, "eps", -1, "out-of-range");
  }
}

TEST(ValidateStep, ShapesOfEveryTensorAreChecked) {
  StepCase c = valid_case();
  c.in.keys.pop_back();
  expect_error(c, "keys", -1, "wrong-shape");
  c = valid_case();
  c.in.queries.push_back(0);
  expect_error(c, "queries", -1, "wrong-shape");
  c = valid_case();
  c.in.position_axes = 2;
  expect_error(c, "positions", -1, "wrong-shape");
  c = valid_case();
  c.in.positions.pop_back();
  expect_error(c, "positions", -1, "wrong-shape");
  c = valid_case();
  c.in.config.ring_positions = true;  // the ring rows are D wide, not P + 12
  expect_error(c, "ring", -1, "wrong-shape");
  c = valid_case();
  c.in.config.store_dtype = StoreDtype::kFp8E4m3;  // the compressed cache holds 2-byte elements
  expect_error(c, "compressed", -1, "wrong-shape");
  c = valid_case();
  c.caches.compressed.bytes.pop_back();
  expect_error(c, "compressed", -1, "wrong-shape");
  c = valid_case();
  c.in.config.w_k.pop_back();
  expect_error(c, "w_k", -1, "wrong-shape");
  c = valid_case();
  c.in.config.w_q.push_back(0);
  expect_error(c, "w_q", -1, "wrong-shape");
  c = valid_case();
  c.in.config.cos_sin =
      std::make_shared<const std::vector<Bf16>>(c.in.config.cos_sin->begin(), c.in.config.cos_sin->end() - 1);
  expect_error(c, "cos_sin", -1, "wrong-shape");
}

TEST(ValidateStep, EveryRowPositionMustBeInsideTheTable) {
  StepCase c = valid_case();
  c.in.positions[7] = 64;  // the padding row: its queries are rotated too
  expect_error(c, "positions", 7, "out-of-range");
  c.in.positions[7] = -1;
  expect_error(c, "positions", 7, "out-of-range");
}

TEST(ValidateStep, TextModelGroupPositionsMustBeInsideTheTable) {
  // Request 0 at positions 2..5 closes group 0 (gC = 0); request 1 at 0..2 closes none. With the
  // model's positions all 0 and a table of 1 row, the group position 0 is fine ...
  StepCase c = valid_case();
  c.in.config.max_position = 1;
  c.in.config.cos_sin = std::make_shared<const std::vector<Bf16>>(
      c.in.config.cos_sin->begin(), c.in.config.cos_sin->begin() + c.in.config.rotary_dim);
  std::fill(c.in.positions.begin(), c.in.positions.end(), 0);
  Error e;
  EXPECT_EQ(validate_step(c.in, c.caches, &e), Status::kOk) << e;
  // ... but a chunk 4..7 closes group 1 at gC = 4, outside the table, whatever positions say.
  c = StepCase({{4, 4}}, 0, 4, 2, 8, {{5}}, {{1}}, 8, 4);
  c.in.config.max_position = 1;
  c.in.config.cos_sin = std::make_shared<const std::vector<Bf16>>(
      c.in.config.cos_sin->begin(), c.in.config.cos_sin->begin() + c.in.config.rotary_dim);
  std::fill(c.in.positions.begin(), c.in.positions.end(), 0);
  expect_error(c, "positions", 3, "out-of-range");  // the group's closing row
}

TEST(ValidateStep, TwoRowsWritingOneCompressedSlotAreRejected) {
  // Both requests close group 0 into compressed block 5.
  StepCase c({{0, 4}, {0, 4}}, 0, 4, 2, 8, {{5}, {5}}, {{1}, {2}}, 8, 4);
  expect_error(c, "slots", 7, "duplicate");
}

TEST(ValidateStep, SlotsPastTheCacheDoNotCountAsDuplicates) {
  StepCase c({{0, 4}, {0, 4}}, 0, 4, 2, 8, {{100}, {100}}, {{1}, {2}}, 8, 4);
  Error e;
  EXPECT_EQ(validate_step(c.in, c.caches, &e), Status::kOk) << e;
}

TEST(ValidateStep, TwoRequestsSharingARingBlockAreRejected) {
  // Different positions mod R, so no slot is written twice, but one request's commit could
  // overwrite a row the other reads (docs/decisions.md).
  StepCase c({{0, 2}, {2, 2}}, 0, 4, 2, 8, {{5}, {6}}, {{1}, {1}}, 8, 4);
  expect_error(c, "ring_block_table", 1, "shared-block");
}

}  // namespace
}  // namespace qsa
