// The invalid batches (traces/invalid_batch.hpp): every draw breaks a rule of SPEC 1.4, and the
// draws break every rule the inventory lists (each "invalid_*" row of docs/input-space.md).

#include <gtest/gtest.h>

#include <iostream>

#include "qsa/engine/input_space_coverage.hpp"
#include "qsa/traces/invalid_batch.hpp"
#include "qsa/validate.hpp"

namespace qsa::traces {
namespace {

TEST(InvalidBatches, EveryDrawIsRejectedAndEveryRuleOfSpec14IsBroken) {
  const uint64_t seed = 20261202;
  std::cout << "seed " << seed << " (Rng(seed).fork(i) for draw i)\n";
  engine::InputSpaceCoverage coverage;
  for (uint64_t i = 0; i < 600; ++i) {
    Rng rng = Rng(seed).fork(i);
    const GeneratedBatch g = random_invalid_metadata_input(rng);
    Error error;
    ASSERT_EQ(validate(g.input, &error), Status::kInvalidInput) << "draw " << i << " passes validation";
    coverage.add_batch(g.input);
  }
  int rules = 0;
  for (const engine::InputClass& row : engine::input_classes()) {
    if (std::string(row.id).rfind("invalid_", 0) != 0) continue;
    ++rules;
    EXPECT_GT(coverage.at(row.which).count, 0) << row.id << " (" << row.parameter << ", " << row.legal
                                               << ") never broken; replay: seed " << seed;
  }
  EXPECT_EQ(rules, 16) << "SPEC 1.4 has 16 rules of a metadata input";
}

}  // namespace
}  // namespace qsa::traces
