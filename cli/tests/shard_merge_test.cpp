// Scale-out: a campaign split into shards and merged gives the unsharded --keep-going
// report, counts and findings alike, on the reference and on a planted bug; merge refuses
// reports that are not one campaign; --jobs does not change the report.

#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "qsa/engine/campaign_jobs.hpp"
#include "qsa/engine/check_report.hpp"
#include "qsa/engine/check_report_reader.hpp"
#include "qsa/engine/merge_reports.hpp"
#include "qsa/traces/extreme_batches.hpp"
#include "qsa/traces/json_reader.hpp"
#include "report_normalizer.hpp"
#include "run_command.hpp"

namespace qsa {
namespace {

using testing::read_file;
using testing::run_qsacheck;
using testing::temp_dir;

// Small enough for CI, the sanitizer build included (every workload, 10 steps each), large enough
// that a planted bug fails many jobs on every shard.
constexpr int kCap = 2;  // listed findings: each is shrunk, the costly part of a failing run
const std::string kCampaign = "--steps 10 --batches 20 --max-findings " + std::to_string(kCap);

nlohmann::json report(const std::string& file) { return nlohmann::json::parse(read_file(file), nullptr, false); }

// Runs the campaign as 4 shards and merges them; returns the merged report's file.
std::string sharded_and_merged(const std::string& backend, const std::string& dir, int expected_exit) {
  std::string files;
  for (int k = 1; k <= 4; ++k) {
    const std::string file = dir + "/shard-" + std::to_string(k) + ".json";
    const auto r = run_qsacheck("check --backend " + backend + " " + kCampaign + " --shard " + std::to_string(k) +
                                "/4 --out " + dir + " --json " + file);
    EXPECT_EQ(r.exit_code, expected_exit) << "shard " << k << ": " << r.out;
    files += " " + file;
  }
  const auto merged = run_qsacheck("merge" + files + " -o " + dir + "/merged.json");
  EXPECT_EQ(merged.exit_code, expected_exit) << merged.out;
  return dir + "/merged.json";
}

std::string unsharded(const std::string& backend, const std::string& dir, const std::string& extra, int expected_exit) {
  const std::string file = dir + "/unsharded" + std::to_string(extra.size()) + ".json";
  const auto r = run_qsacheck("check --backend " + backend + " " + kCampaign + " --keep-going " + extra + " --out " +
                              dir + " --json " + file);
  EXPECT_EQ(r.exit_code, expected_exit) << r.out;
  return file;
}

TEST(ShardedCampaign, FourShardsMergeIntoTheUnshardedReportOnTheReference) {
  const std::string dir = temp_dir();
  const auto merged = report(sharded_and_merged("reference", dir, 0));
  const auto whole = report(unsharded("reference", dir, "", 0));
  ASSERT_FALSE(merged.is_discarded());
  ASSERT_FALSE(whole.is_discarded());
  EXPECT_EQ(testing::without_run_facts(merged), testing::without_run_facts(whole))
      << "diff: " << nlohmann::json::diff(testing::without_run_facts(whole), testing::without_run_facts(merged));
  EXPECT_EQ(merged["jobs"].size(), merged["campaign"]["jobs_total"].get<size_t>());
  EXPECT_GT(merged["coverage"]["steps"].get<int64_t>(), 0);
  // The input space: shard 1's batches and every shard's steps add up to the whole run's.
  EXPECT_EQ(merged["schema_version"], whole["schema_version"]);
  EXPECT_EQ(merged["input_space"], whole["input_space"]);
  EXPECT_GT(merged["input_space"]["reached"].get<int64_t>(), 0);
  // The sharing figures: every shard's scenarios add up to the whole run's.
  EXPECT_EQ(merged["sharing"], whole["sharing"]);
  EXPECT_GT(merged["sharing"]["prefix_hits"].get<int64_t>(), 0);
  EXPECT_EQ(merged["run"]["merged_from"].size(), 4u);
}

TEST(ShardedCampaign, FourShardsMergeIntoTheUnshardedReportOnAPlantedBug) {
  const std::string dir = temp_dir();
  const auto merged = report(sharded_and_merged("bug:ring-read-after-commit", dir, 1));
  const auto whole = report(unsharded("bug:ring-read-after-commit", dir, "", 1));
  ASSERT_FALSE(merged.is_discarded());
  EXPECT_EQ(testing::without_run_facts(merged), testing::without_run_facts(whole))
      << "diff: " << nlohmann::json::diff(testing::without_run_facts(whole), testing::without_run_facts(merged));
  // Every shard found something, so the cap had to pick the campaign's first findings.
  EXPECT_GT(merged["findings_total"].get<int64_t>(), 4 * kCap) << "the planted bug should fail many jobs";
  ASSERT_EQ(merged["findings"].size(), static_cast<size_t>(kCap));
  EXPECT_EQ(merged["findings_not_listed"], merged["findings_total"].get<int64_t>() - kCap);
  int64_t previous = -1;
  for (const auto& finding : merged["findings"]) {
    EXPECT_GT(finding["order"].get<int64_t>(), previous) << "findings are listed in campaign order";
    previous = finding["order"].get<int64_t>();
    EXPECT_FALSE(finding["reproducer"].get<std::string>().empty()) << finding;
  }
  const std::string repro = merged["findings"][0]["reproducer"];
  EXPECT_EQ(run_qsacheck("replay --backend bug:ring-read-after-commit " + repro).exit_code, 1)
      << "the listed reproducer fails on the planted bug";
}

// From kExtremeBatchesFrom batches on (the default campaign's size) shard 1 runs the extreme batches
// after its scenarios; the other shards must hold their empty row in that place, or merge refuses
// the reports as different checks (a run of the default campaign on an H200 found it).
TEST(ShardedCampaign, TheExtremeBatchesRowFollowsTheScenariosOnEveryShard) {
  const std::string dir = temp_dir();
  const std::string options = "check --backend reference --workload default --scenarios 2 --steps 4 --batches " +
                              std::to_string(engine::kExtremeBatchesFrom) + " --out " + dir;
  std::string files;
  for (int k = 1; k <= 2; ++k) {
    const std::string file = dir + "/e" + std::to_string(k) + ".json";
    const auto r = run_qsacheck(options + " --shard " + std::to_string(k) + "/2 --json " + file);
    EXPECT_EQ(r.exit_code, 0) << "shard " << k << ": " << r.out;
    files += " " + file;
  }
  const auto merged = run_qsacheck("merge" + files + " -o " + dir + "/merged.json");
  ASSERT_EQ(merged.exit_code, 0) << merged.out;
  ASSERT_EQ(run_qsacheck(options + " --keep-going --json " + dir + "/whole.json").exit_code, 0);
  const auto whole = report(dir + "/whole.json");
  ASSERT_FALSE(whole.is_discarded());
  EXPECT_EQ(testing::without_run_facts(report(dir + "/merged.json")), testing::without_run_facts(whole));
  const auto& last = whole["checks"].back();
  EXPECT_EQ(last["check"], "metadata on extreme batches (SPEC 1.3 limits, reference)") << whole["checks"];
  EXPECT_EQ(last["cases"], traces::kNumExtremeBatches) << "the extreme batches should have run";
}

TEST(ShardedCampaign, FloatStatisticsMergeAsOneRunWouldCountThem) {
  // Tolerance mode: histograms summed, the worst element the farthest and, on a tie, the earliest job's.
  const std::string dir = temp_dir();
  const std::string options =
      "--backend upstream-like --float-tolerance row-ulp:2 --workload mrope-fp8 --scenarios 6 --steps 8 --batches 5";
  std::string files;
  for (int k = 1; k <= 3; ++k) {
    files += " " + dir + "/t" + std::to_string(k) + ".json";
    EXPECT_EQ(run_qsacheck("check " + options + " --shard " + std::to_string(k) + "/3 --json " + dir + "/t" +
                           std::to_string(k) + ".json")
                  .exit_code,
              0);
  }
  ASSERT_EQ(run_qsacheck("merge" + files + " -o " + dir + "/merged.json").exit_code, 0);
  ASSERT_EQ(run_qsacheck("check " + options + " --keep-going --json " + dir + "/whole.json").exit_code, 0);
  const auto merged = report(dir + "/merged.json"), whole = report(dir + "/whole.json");
  ASSERT_TRUE(whole.contains("float_statistics")) << whole;
  EXPECT_GT(whole["float_statistics"]["upstream-like"]["q_out"]["row_ulp_histogram"]["1"].get<int64_t>(), 0)
      << "the backend should differ by a row-ulp somewhere, or the statistics prove nothing";
  EXPECT_EQ(testing::without_run_facts(merged), testing::without_run_facts(whole))
      << "diff: " << nlohmann::json::diff(testing::without_run_facts(whole), testing::without_run_facts(merged));
}

TEST(ShardedCampaign, ThreadsDoNotChangeTheReport) {
  const std::string dir = temp_dir();
  const auto one = report(unsharded("bug:ring-read-after-commit", dir, "", 1));
  const auto three = report(unsharded("bug:ring-read-after-commit", dir, "--jobs 3", 1));
  EXPECT_EQ(three["run"]["threads"], 3);
  EXPECT_EQ(testing::without_run_facts(one), testing::without_run_facts(three))
      << "diff: " << nlohmann::json::diff(testing::without_run_facts(one), testing::without_run_facts(three));
}

TEST(MergeCommand, RefusesReportsThatAreNotOneCampaign) {
  const std::string dir = temp_dir();
  auto shard = [&](const std::string& name, const std::string& options) {
    const std::string file = dir + "/" + name + ".json";
    // One small workload: what is refused is the reports' campaign facts, not their contents.
    run_qsacheck("check --backend reference --workload default --scenarios 3 --steps 5 --batches 5 " + options +
                 " --json " + file);
    return file;
  };
  const std::string s1 = shard("s1", "--shard 1/3"), s2 = shard("s2", "--shard 2/3"), s3 = shard("s3", "--shard 3/3");
  const std::string other_seed = shard("other", "--shard 3/3 --seed 2");
  const std::string stops = shard("stops", "");
  auto refused = [&](const std::string& files, const std::string& field, const std::string& rule) {
    const auto r = run_qsacheck("merge " + files);
    EXPECT_EQ(r.exit_code, 2) << files << ": " << r.out;
    const auto line = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_FALSE(line.is_discarded()) << "stdout must be the one JSON error line: " << r.out;
    EXPECT_EQ(line["field"], field) << r.out;
    EXPECT_EQ(line["rule"], rule) << r.out;
  };
  EXPECT_EQ(run_qsacheck("merge " + s3 + " " + s1 + " " + s2).exit_code, 0) << "any order";
  refused(s1 + " " + s2, "campaign.shard.index", "missing-shard");
  refused(s1 + " " + s2 + " " + s2 + " " + s3, "campaign.shard.index", "duplicate-shard");
  refused(s1 + " " + s2 + " " + other_seed, "campaign.settings_hash", "different-settings");
  refused(stops, "campaign.keep_going", "not-keep-going");
}

}  // namespace
}  // namespace qsa

namespace qsa::cli {
namespace {

// Two shard reports of one (empty) campaign, each with the input-space counts of one batch.
CheckReport shard_with_batch(int64_t index, const MetadataInput& batch) {
  CheckReport r;
  r.campaign.keep_going = true;
  r.campaign.shard_index = index;
  r.campaign.shard_count = 2;
  r.campaign.max_findings = 10;
  r.input_space.add_batch(batch);
  return r;
}

// The report's JSON as `check --json` writes it (the output layer adds unwritten_outputs).
nlohmann::json written(const CheckReport& r) {
  nlohmann::json json = nlohmann::json::parse(engine::report_to_json(r).dump());
  json["unwritten_outputs"] = nlohmann::json::array();
  return json;
}

MetadataInput passthrough_batch(int64_t rows, int64_t padding) {
  MetadataInput in;
  in.cache.kind = CacheKind::kPassthrough;
  in.batch.query_start_loc = {0, rows};
  in.batch.seq_lens = {rows};
  in.batch.num_actual_tokens = rows + padding;
  in.batch.common_slot_mapping.assign(static_cast<size_t>(rows + padding), -1);
  in.block_table = BlockTable::from_rows({{0}});
  return in;
}

TEST(MergeInputSpace, CountsAddAndExtremesCombineThroughTheJsonReports) {
  const CheckReport one = shard_with_batch(1, passthrough_batch(1, 0));
  const CheckReport two = shard_with_batch(2, passthrough_batch(5, 3));
  // Through the JSON each shard writes and `merge` reads back.
  std::vector<ShardReport> shards;
  for (const CheckReport* r : {&two, &one})
    shards.push_back({"shard" + std::to_string(r->campaign.shard_index), engine::report_from_json(written(*r), "")});
  EXPECT_EQ(shards[0].report.input_space, two.input_space) << "the JSON round trip keeps every count and edge";
  const CheckReport merged = engine::merge_reports(shards);
  const engine::InputClassCount& n = merged.input_space.at(engine::InputClassId::kNumActualTokens);
  EXPECT_EQ(n.count, 2);
  EXPECT_EQ(n.min, 1);
  EXPECT_EQ(n.max, 8);
  EXPECT_TRUE(n.edges[1]) << "shard 1's N = 1 is lo + 1";
  const engine::InputClassCount& padding = merged.input_space.at(engine::InputClassId::kPaddingRows);
  EXPECT_TRUE(padding.edges[0]) << "shard 1 has no padding: lo";
  EXPECT_EQ(padding.max, 3);
  EXPECT_EQ(merged.input_space.at(engine::InputClassId::kTokenOnlyPadding).count, 1);
  engine::InputSpaceCoverage sum = one.input_space;
  sum += two.input_space;
  EXPECT_EQ(merged.input_space, sum);
}

TEST(MergeInputSpace, AReportOfAnotherSchemaVersionIsRefused) {
  nlohmann::json json = written(shard_with_batch(1, passthrough_batch(1, 0)));
  json["schema_version"] = engine::kCheckReportSchemaVersion + 1;
  try {
    engine::report_from_json(json, "files[0].");
    FAIL() << "read a report of another schema version";
  } catch (const InputError& e) {
    EXPECT_EQ(e.error().field, "files[0].schema_version");
    EXPECT_EQ(e.error().rule, "unsupported-version");
  }
  json = written(shard_with_batch(1, passthrough_batch(1, 0)));
  json["input_space"]["rows"][0]["id"] = "no_such_class";
  try {
    engine::report_from_json(json, "");
    FAIL() << "read an input-space class the inventory does not have";
  } catch (const InputError& e) {
    EXPECT_EQ(e.error().rule, "unknown-class");
  }
}

}  // namespace
}  // namespace qsa::cli
