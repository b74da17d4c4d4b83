// The input-space counts of a campaign's report (the checker's hooks, with a backend running)
// equal the counts of its generated inputs alone (campaign_input_space(), what the CTest
// cli.input_space_default_campaign_reaches_every_class runs): the two cannot drift apart.

#include <gtest/gtest.h>

#include "campaign_inputs.hpp"
#include "checker.hpp"

namespace qsa::cli {
namespace {

TEST(InputSpaceCampaign, CountsWithoutABackendEqualTheCheckReports) {
  CheckOptions options;
  options.backends = {"reference"};
  options.steps = 10;
  options.batches = 40;
  options.quiet = true;
  options.shrink = false;
  Checker checker(options);
  const CheckReport report = checker.run();
  ASSERT_FALSE(report.setup_error) << to_string(*report.setup_error);
  ASSERT_FALSE(report.failed()) << "the reference should pass its own campaign";
  const traces::InputSpaceCoverage alone =
      campaign_input_space(checker.campaign(), options.seed, options.batches, /*threads=*/2);
  EXPECT_GT(alone.reached_rows(), 0);
  for (const traces::InputClass& row : traces::input_classes()) {
    const traces::InputClassCount& want = alone.at(row.which);
    const traces::InputClassCount& got = report.input_space.at(row.which);
    EXPECT_EQ(got.count, want.count) << row.id;
    EXPECT_EQ(got.steps, want.steps) << row.id;
    EXPECT_EQ(got.min, want.min) << row.id;
    EXPECT_EQ(got.max, want.max) << row.id;
    EXPECT_EQ(got.edges, want.edges) << row.id;
  }
}

}  // namespace
}  // namespace qsa::cli
