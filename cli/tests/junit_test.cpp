// `--junit FILE` of check and replay (cli/src/junit_report.hpp): the XML's escaping, the
// testcases of a replay report, and end to end a planted bug whose failure names the finding and
// the replay command that re-runs it.

#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "junit_report.hpp"
#include "run_command.hpp"

namespace qsa::cli {
namespace {

using testing::read_file;
using testing::temp_dir;

int64_t count(const std::string& text, const std::string& what) {
  int64_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(Junit, EscapesMarkupAndReplacesWhatXmlCannotHold) {
  JunitSuite suite{"s", {{"p", "a&b"}}, {}, "", "", ""};
  suite.cases.push_back({"c", "<name \"q\" 'a'>", 1.5, JunitCase::Outcome::kFailed,
                         "bad \xff byte, \x01 control, caf\xc3\xa9\nsecond line", "details & more"});
  const std::string xml = junit_xml(suite);
  EXPECT_NE(xml.find("name=\"&lt;name &quot;q&quot; &#39;a&#39;&gt;\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("value=\"a&amp;b\""), std::string::npos) << xml;
  // The message is the first line; an invalid byte becomes U+FFFD, a control character '?',
  // valid UTF-8 stays.
  EXPECT_NE(xml.find("message=\"bad \xef\xbf\xbd byte, ? control, caf\xc3\xa9\">details &amp; more</failure>"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("tests=\"1\" failures=\"1\" errors=\"0\" skipped=\"0\" time=\"1.500\""), std::string::npos) << xml;
}

TEST(Junit, EachFailedRowOfAKeepGoingReportNamesItsOwnReproducer) {
  CheckReport report;
  report.campaign.keep_going = true;
  for (const char* check : {"scenarios: default", "scenarios: ratios", "scenarios: tiny-blocks"})
    report.rows.push_back(CheckRow{check, "bug:x", 2, 1, 0, std::string("first of ") + check, 0});
  report.findings.push_back(
      CheckFinding{1, "bug:x", "scenarios: default", 0, "default", 1, 3, "f", "a.scenario", "replay a", -1});
  report.findings.push_back(
      CheckFinding{2, "bug:x", "scenarios: ratios", 1, "ratios", 2, 3, "f", "b.scenario", "replay b", -1});
  // The third row's finding was beyond --max-findings: no reproducer, and none of another row.
  const JunitSuite suite = check_junit(report);
  ASSERT_GE(suite.cases.size(), 3u);
  EXPECT_NE(suite.cases[0].details.find("reproducer: a.scenario\nreplay: replay a"), std::string::npos)
      << suite.cases[0].details;
  EXPECT_NE(suite.cases[1].details.find("reproducer: b.scenario\nreplay: replay b"), std::string::npos)
      << suite.cases[1].details;
  EXPECT_EQ(suite.cases[2].details.find("reproducer"), std::string::npos) << suite.cases[2].details;
}

TEST(Junit, AReplayReportGivesATestcasePerFileAndSkipsWhatDidNotRun) {
  const nlohmann::json report = {{"backend", "plugin:x.so"},
                                 {"files",
                                  {{{"file", "a.scenario"},
                                    {"passed", false},
                                    {"failure", "step 3: 7.5-writes: ..."},
                                    {"float_tolerance", "row-ulp:1"}},
                                   {{"file", "b.scenario"},
                                    {"passed", true},
                                    {"float_tolerance", "exact"},
                                    {"step_update_checked", false},
                                    {"not_run", {"metadata of the ring kind: missing-capability"}}}}}};
  const JunitSuite suite = replay_junit(report);
  ASSERT_EQ(suite.cases.size(), 4u);
  EXPECT_EQ(suite.cases[0].outcome, JunitCase::Outcome::kFailed);
  EXPECT_NE(suite.cases[0].details.find("replay: qsacheck replay --backend plugin:x.so --float-tolerance row-ulp:1 "
                                        "a.scenario"),
            std::string::npos)
      << suite.cases[0].details;
  EXPECT_EQ(suite.cases[1].outcome, JunitCase::Outcome::kPassed);
  EXPECT_EQ(suite.cases[2].outcome, JunitCase::Outcome::kSkipped);  // the step update
  EXPECT_EQ(suite.cases[3].outcome, JunitCase::Outcome::kSkipped);  // the declined metadata kind
  EXPECT_EQ(suite.properties.back(), (std::pair<std::string, std::string>{"float_tolerance", "exact,row-ulp:1"}));
}

TEST(Junit, EveryPlannedCheckIsATestcaseSkippedWhenItDidNotRun) {
  CheckReport report;  // a run that stopped at its first finding, in the generated batches
  for (const char* check : {"examples", "batches", "invalid", "scenarios: default", "extreme"})
    report.planned.emplace_back(check, "plugin:build/libx.so");
  report.rows.push_back(CheckRow{"examples", "plugin:build/libx.so", 8, 0, 0, "", -1});
  report.rows.push_back(CheckRow{"batches", "plugin:build/libx.so", 3, 1, 0, "batch 2: ...", 0});
  const JunitSuite suite = check_junit(report);
  ASSERT_EQ(suite.cases.size(), 5u);
  for (size_t i = 0; i < suite.cases.size(); ++i) {
    EXPECT_EQ(suite.cases[i].name, report.planned[i].first);
    EXPECT_EQ(suite.cases[i].classname, "qsacheck.check.plugin_libx_so");
    EXPECT_EQ(suite.cases[i].outcome, i == 0   ? JunitCase::Outcome::kPassed
                                      : i == 1 ? JunitCase::Outcome::kFailed
                                               : JunitCase::Outcome::kSkipped);
  }
  EXPECT_NE(suite.cases[4].message.find("--keep-going"), std::string::npos) << suite.cases[4].message;
}

TEST(Junit, ClassnamesHaveNoDotAndNamesNoAbsolutePath) {
  EXPECT_EQ(junit_class("reference"), "reference");
  EXPECT_EQ(junit_class("plugin:/home/me/build/libqsa_example_host.so"), "plugin_libqsa_example_host_so");
  EXPECT_EQ(junit_class("plugin:build/libx.so#slower"), "plugin_libx_so_slower");
  EXPECT_EQ(junit_class("worker:\"python3 examples/workers/numpy/qsa_numpy_worker.py\""), "worker_qsa_numpy_worker_py");
  EXPECT_EQ(junit_class("worker:python3 w/k.py --bug 1"), "worker_k_py");
  EXPECT_EQ(junit_class("isolated:plugin:/a/b.so"), "isolated_b_so");
  const nlohmann::json report = {
      {"backend", "reference"},
      {"files", {{{"file", "/nowhere/traces/recorded/default.scenario"}, {"passed", true}}, {{"file", "./a.scenario"}, {"passed", true}}}}};
  const JunitSuite suite = replay_junit(report);
  ASSERT_EQ(suite.cases.size(), 2u);
  EXPECT_EQ(suite.cases[0].name, "recorded/default.scenario");
  EXPECT_EQ(suite.cases[1].name, "a.scenario");
}

TEST(Junit, CheckOfAPlantedBugNamesTheFindingAndTheReplayCommand) {
  const std::string dir = temp_dir();
  const std::string xml_path = dir + "/check.xml";
  const auto r = testing::run_qsacheck(
      "check --backend bug:pool-wrong-ring-row --workload default --scenarios 1 "
      "--steps 100 --batches 20 --out " +
      dir + " --junit " + xml_path);
  ASSERT_EQ(r.exit_code, 1) << r.out;
  const std::string xml = read_file(xml_path);
  EXPECT_EQ(count(xml, "<testcase "), 4) << xml;  // examples, generated batches, invalid batches, the scenarios
  EXPECT_EQ(count(xml, "<failure "), 1) << xml;
  EXPECT_NE(xml.find("classname=\"qsacheck.check.bug_pool-wrong-ring-row\" name=\"scenarios: default\""),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("step-differential"), std::string::npos) << "the failure holds the finding: " << xml;
  EXPECT_NE(xml.find("replay: qsacheck replay --backend bug:pool-wrong-ring-row "), std::string::npos) << xml;
  EXPECT_NE(xml.find("<property name=\"float_tolerance\" value=\"exact\"/>"), std::string::npos) << xml;
}

TEST(Junit, AnUnwritablePathIsRefusedBeforeTheCampaign) {
  const auto r = testing::run_qsacheck("check --junit /nonexistent-folder/check.xml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("\"field\":\"--junit\""), std::string::npos) << r.out;
  EXPECT_EQ(testing::run_qsacheck("replay --junit /nonexistent-folder/r.xml x.scenario").exit_code, 2);
}

}  // namespace
}  // namespace qsa::cli
