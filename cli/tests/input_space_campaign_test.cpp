// The input-space counts of a campaign's report (the checker's hooks, with a backend running)
// equal the counts of its generated inputs alone (campaign_input_space(), what the CTest
// cli.input_space_default_campaign_reaches_every_class runs): the two cannot drift apart.

#include <gtest/gtest.h>

#include <algorithm>

#include "checker.hpp"
#include "input_space_text.hpp"
#include "qsa/engine/campaign_inputs.hpp"
#include "qsa/engine/input_space_report.hpp"
#include "run_command.hpp"

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
  const engine::InputSpaceCoverage alone =
      engine::campaign_input_space(checker.campaign(), options.seed, options.batches, /*threads=*/2);
  EXPECT_GT(alone.reached_rows(), 0);
  for (const engine::InputClass& row : engine::input_classes()) {
    const engine::InputClassCount& want = alone.at(row.which);
    const engine::InputClassCount& got = report.input_space.at(row.which);
    EXPECT_EQ(got.count, want.count) << row.id;
    EXPECT_EQ(got.steps, want.steps) << row.id;
    EXPECT_EQ(got.min, want.min) << row.id;
    EXPECT_EQ(got.max, want.max) << row.id;
    EXPECT_EQ(got.edges, want.edges) << row.id;
  }
}

// The known-gaps ratchet of the CTest above: exactly the listed gaps pass; a gap not listed, or a
// listed key that is no gap (reached now, or a typo), fails and is named.
TEST(InputSpaceKnownGaps, OnlyTheExactListPassesAndEveryDifferenceIsNamed) {
  const engine::InputSpaceCoverage nothing;  // every class unreached
  const std::vector<std::string> keys = nothing.gap_keys();
  // A class only a backend with declared limits reaches is never a gap (docs/input-space.md).
  const auto needs_limits = std::count_if(engine::input_classes().begin(), engine::input_classes().end(),
                                          [](const engine::InputClass& row) { return row.needs_declared_limits; });
  ASSERT_EQ(needs_limits, 1);
  ASSERT_EQ(keys.size(), engine::input_classes().size() - 1)
      << "an empty coverage: one key per class but call_declined_before_step, no edge keys";
  EXPECT_EQ(std::count(keys.begin(), keys.end(), "call_declined_before_step"), 0);
  const std::set<std::string> all(keys.begin(), keys.end());
  char buffer[1 << 16];
  auto run = [&](const std::set<std::string>& known, bool* matched) {
    std::FILE* out = fmemopen(buffer, sizeof buffer, "w");
    *matched = matches_known_gaps(nothing, known, "gaps.txt", out);
    std::fclose(out);
    return std::string(buffer);
  };
  bool matched = false;
  run(all, &matched);
  EXPECT_TRUE(matched);
  std::set<std::string> fewer = all;
  fewer.erase(keys.front());
  EXPECT_NE(run(fewer, &matched).find("NEW GAP  " + keys.front()), std::string::npos);
  EXPECT_FALSE(matched);
  std::set<std::string> more = all;
  more.insert("no_such_class hi");
  EXPECT_NE(run(more, &matched).find("NOT A GAP  no_such_class hi"), std::string::npos);
  EXPECT_FALSE(matched);
}

// A typo in --known-gaps is bad input before anything runs (exit 2 naming the key's place), not a
// "not a gap" line after a whole campaign; every key a campaign can print is accepted.
TEST(InputSpaceKnownGaps, AKeyNoCampaignCanPrintIsBadInputBeforeTheCampaign) {
  for (const std::string& key : engine::InputSpaceCoverage().gap_keys())
    EXPECT_TRUE(engine::InputSpaceCoverage::is_gap_key(key)) << key;
  EXPECT_TRUE(engine::InputSpaceCoverage::is_gap_key("seq_len hi-1"));
  EXPECT_FALSE(engine::InputSpaceCoverage::is_gap_key("seq_len hi+1"));
  EXPECT_FALSE(engine::InputSpaceCoverage::is_gap_key("key_nan hi"));  // a class row has no edges
  const std::string file = testing::temp_dir() + "/known-gaps-typo.txt";
  std::FILE* f = std::fopen(file.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("key_nan\nseq_lne hi\n", f);
  std::fclose(f);
  const auto r = testing::run_qsacheck("input-space --campaign --batches 3000 --known-gaps " + file);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("\"rule\":\"unknown-key\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("seq_lne hi"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace qsa::cli
