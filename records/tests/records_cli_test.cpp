// `qsacheck bench compare`, `bench import` and `report` end to end: exit codes, the one JSON error
// line of bad input, and the report's structure (files, embedded plots, environment table, SVGs that
// parse). The page itself was looked at in a browser once (docs/bench-records.md).

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <regex>

#include <nlohmann/json.hpp>

#include "qsa/records/program.hpp"
#include "record_builder.hpp"
#include "run_command.hpp"

namespace qsa::records {
namespace {

using qsa::testing::run_qsacheck;
using testing::build_record;
using testing::BuiltBenchmark;
using testing::h200_context;
using testing::noisy_times;
using testing::write_temp_file;

const std::vector<std::string> kShapes = {"shape:decode/tokens:256/requests:64/dtype:bf16",
                                          "shape:decode/tokens:4096/requests:1024/dtype:bf16",
                                          "shape:prefill/tokens:16384/requests:4/dtype:bf16"};

// A measured step-update record: cuda and baseline per shape, the floor and the copy ceiling.
std::string step_record(uint64_t seed, double slower_first = 1, const std::string& date = "2026-12-01T10:00:00+00:00") {
  std::vector<BuiltBenchmark> b;
  for (size_t i = 0; i < kShapes.size(); ++i) {
    const double bytes = 1e6 * static_cast<double>(i + 1) * 4;
    std::vector<double> cuda = noisy_times(5.0 * static_cast<double>(i + 1), 0.01, 9, seed * 10 + i);
    if (i == 0)
      for (double& t : cuda) t *= slower_first;
    b.push_back({"BM_StepUpdate/cuda/" + kShapes[i] + "/iterations:30/repeats:9/manual_time", cuda, bytes});
    b.push_back({"BM_StepUpdate/baseline/" + kShapes[i] + "/iterations:30/repeats:9/manual_time",
                 noisy_times(12.0 * static_cast<double>(i + 1), 0.01, 9, seed * 10 + 5 + i), bytes});
  }
  b.push_back({"BM_Floor/empty_kernel/iterations:30/repeats:9/manual_time", noisy_times(0.7, 0.01, 9, seed), 0});
  b.push_back({"BM_Copy/kernel/iterations:30/repeats:9/manual_time", noisy_times(500, 0.01, 9, seed), 2e9});
  return build_record(b, h200_context({{"date", date}})).dump(1);
}

nlohmann::json only_json_line(const std::string& out) {
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << "exactly one line on stdout: " << out;
  return nlohmann::json::parse(out, nullptr, false);
}

TEST(BenchCompareCommand, SameTreeExitsZeroAndASlowerShapeExitsOneNamingIt) {
  const std::string base = write_temp_file("base.json", step_record(1));
  const auto same = run_qsacheck("bench compare " + base + " " + write_temp_file("same.json", step_record(2)));
  EXPECT_EQ(same.exit_code, 0) << same.out;
  EXPECT_NE(same.out.find("RESULT: no regression"), std::string::npos) << same.out;
  const auto slow = run_qsacheck("bench compare " + base + " " + write_temp_file("slow.json", step_record(3, 1.08)));
  EXPECT_EQ(slow.exit_code, 1) << slow.out;
  EXPECT_TRUE(std::regex_search(slow.out, std::regex("BM_StepUpdate/cuda/" + kShapes[0] + " .*REGRESSION")))
      << slow.out;
  EXPECT_NE(slow.out.find("RESULT: 1 regression"), std::string::npos) << slow.out;
  const auto markdown =
      run_qsacheck("bench compare --markdown " + base + " " + write_temp_file("slow.json", step_record(3, 1.08)));
  EXPECT_EQ(markdown.exit_code, 1);
  EXPECT_NE(markdown.out.find("| benchmark | baseline | candidate | change | p | reps | verdict |"), std::string::npos);
  EXPECT_NE(markdown.out.find(":x: **REGRESSION**"), std::string::npos) << markdown.out;
}

TEST(BenchCompareCommand, BadInputIsOneJsonErrorLineWithExitTwo) {
  const std::string good = write_temp_file("good.json", step_record(1));
  const auto malformed =
      run_qsacheck("bench compare " + good + " " + write_temp_file("bad.json", "{\"benchmarks\": [1,"));
  EXPECT_EQ(malformed.exit_code, 2);
  const auto e1 = only_json_line(malformed.out);
  EXPECT_EQ(e1["status"], "error");
  EXPECT_EQ(e1["field"], "candidate");
  EXPECT_EQ(e1["rule"], "malformed-json");
  EXPECT_EQ(e1["index"], 18) << "the byte offset where the text ends";

  const auto not_record = run_qsacheck("bench compare " + write_temp_file("x.json", "{\"context\": {}}") + " " + good);
  EXPECT_EQ(not_record.exit_code, 2);
  EXPECT_EQ(only_json_line(not_record.out)["rule"], "not-a-benchmark-record");

  const auto bad_entry =
      run_qsacheck("bench compare " + good + " " +
                   write_temp_file("e.json", R"({"benchmarks": [{"name": "BM_A", "real_time": 1}]})"));
  EXPECT_EQ(bad_entry.exit_code, 2);
  const auto e3 = only_json_line(bad_entry.out);
  EXPECT_EQ(e3["field"], "candidate.benchmarks");
  EXPECT_EQ(e3["index"], 0);
  EXPECT_EQ(e3["rule"], "missing");

  const auto wrong_type = run_qsacheck(
      "bench compare " + good + " " +
      write_temp_file(
          "t.json",
          R"({"benchmarks": [{"name": "BM_A", "run_type": 3, "real_time": 1, "cpu_time": 1, "time_unit": "ns"}]})"));
  EXPECT_EQ(wrong_type.exit_code, 2);
  const auto e4 = only_json_line(wrong_type.out);
  EXPECT_EQ(e4["field"], "candidate.benchmarks");
  EXPECT_EQ(e4["rule"], "wrong-type");

  const auto other = nlohmann::json{
      {"benchmarks",
       {{{"name", "BM_Other"}, {"run_type", "iteration"}, {"real_time", 1}, {"cpu_time", 1}, {"time_unit", "ns"}}}}};
  const auto disjoint = run_qsacheck("bench compare " + good + " " + write_temp_file("o.json", other.dump()));
  EXPECT_EQ(disjoint.exit_code, 2);
  EXPECT_EQ(only_json_line(disjoint.out)["rule"], "no-common-benchmarks");

  const auto missing = run_qsacheck("bench compare /nonexistent/base.json " + good);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(only_json_line(missing.out)["rule"], "unreadable");

  nlohmann::json newer = nlohmann::json::parse(step_record(1));
  newer["context"]["qsacheck_schema_version"] = "99";
  const auto future = run_qsacheck("bench compare " + good + " " + write_temp_file("n.json", newer.dump()));
  EXPECT_EQ(future.exit_code, 2);
  EXPECT_EQ(only_json_line(future.out)["rule"], "unsupported-schema");
}

TEST(BenchCompareCommand, TheRepositorysImportedRecordsAreRefusedAsBaseline) {
  const std::string imported =
      std::string(QSA_SOURCE_DIR) + "/records/history/2026-11-30-final-v5-step_update_bench.json";
  const auto r = run_qsacheck("bench compare " + imported + " " + write_temp_file("c.json", step_record(1)));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  const auto e = only_json_line(r.out);
  EXPECT_EQ(e["field"], "baseline");
  EXPECT_EQ(e["rule"], "imported-record");
  EXPECT_NE(e["message"].get<std::string>().find("no U test"), std::string::npos) << e["message"];
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(ReportCommand, BuildsASelfContainedPageWithParseableSvgPlots) {
  if (find_program("gnuplot").empty()) GTEST_SKIP() << "gnuplot not installed (./dev deps installs gnuplot-nox)";
  const std::string a = write_temp_file("a.json", step_record(1, 1, "2026-12-01T10:00:00+00:00"));
  const std::string b = write_temp_file("b.json", step_record(2, 1.3, "2026-12-01T11:00:00+00:00"));
  const std::string imported =
      std::string(QSA_SOURCE_DIR) + "/records/history/2026-11-30-final-v5-step_update_bench.json";
  const std::string dir = write_temp_file("unused", "") + "-report";
  const auto r = run_qsacheck("report " + b + " " + a + " " + imported + " -o " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string html = read_text(dir + "/index.html");
  for (const char* plot : {"time-BM_StepUpdate.svg", "copy-BM_StepUpdate.svg", "history-BM_StepUpdate.svg"}) {
    const std::string path = dir + "/" + plot;
    struct stat info {};
    ASSERT_EQ(stat(path.c_str(), &info), 0) << path;
    EXPECT_GT(info.st_size, 1000) << path;
    if (!find_program("xmllint").empty()) {
      EXPECT_EQ(std::system(("xmllint --noout " + path).c_str()), 0) << path << " is not well-formed XML";
    }
    EXPECT_NE(read_text(path).find("<svg"), std::string::npos) << path;
    EXPECT_NE(html.find(plot), std::string::npos) << plot << " is not named in the page";
  }
  EXPECT_EQ(count_of(html, "src=\"data:image/svg+xml;base64,"), 3u) << "every plot embedded";
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("src=\"http"), std::string::npos) << "nothing fetched from a network";
  EXPECT_EQ(html.find("href=\"http"), std::string::npos);
  EXPECT_NE(html.find("<table id=\"environment\">"), std::string::npos);
  EXPECT_EQ(count_of(html, "<td>NVIDIA H200</td>"), 3u) << "one environment row per record";
  EXPECT_NE(html.find("imported (aggregates only)"), std::string::npos);
  // History order is by date: the imported record (11-30), a (12-01 10:00), then b (11:00), whose first
  // shape is 30 % slower than in a: a regression tested by the U test (a p-value, not "untested").
  const std::string environment = html.substr(html.find("<table id=\"environment\">"));
  auto file_of = [](const std::string& path) { return "<td>" + path.substr(path.rfind('/') + 1) + "</td>"; };
  EXPECT_LT(environment.find(file_of(imported)), environment.find(file_of(a)));
  EXPECT_LT(environment.find(file_of(a)), environment.find(file_of(b)))
      << "records ordered by date, not by the command line";
  EXPECT_EQ(environment.find(QSA_SOURCE_DIR), std::string::npos) << "files by their names, not their paths";
  // Issue 52: the summary comes first, its headline counting the newest record's regression.
  EXPECT_LT(html.find("<h2>Summary: newest against previous</h2>"), html.find("<h2>Time per shape</h2>"));
  EXPECT_NE(html.find("<p class=\"verdict bad\">1 regression of "), std::string::npos) << html;
  EXPECT_NE(html.find("<details class=\"section\" id=\"environment-section\">"), std::string::npos)
      << "the environment is collapsed";
  EXPECT_NE(html.find("<table id=\"regressions\">"), std::string::npos);
  EXPECT_TRUE(std::regex_search(html, std::regex("class=\"regression\"><td><code>BM_StepUpdate/cuda/" + kShapes[0] +
                                                 "</code></td><td>2026-12-01 10:00[^<]*</td><td>2026-12-01 11:00"
                                                 "[^<]*</td><td class=\"num\">\\+3[0-9]\\.[0-9]%</td><td>0\\.0")))
      << "the 30 % slowdown from a to b is marked with its p-value";
}

TEST(ReportCommand, WithoutGnuplotItSaysHowToInstallItAndExitsThree) {
  const std::string a = write_temp_file("a.json", step_record(1));
  const std::string dir = write_temp_file("unused", "") + "-report";
  setenv("QSA_GNUPLOT", "/nonexistent/gnuplot", 1);
  const auto r = run_qsacheck("report " + a + " -o " + dir);
  unsetenv("QSA_GNUPLOT");
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_NE(r.out.find("apt-get install gnuplot-nox"), std::string::npos) << r.out;
  const std::string html = read_text(dir + "/index.html");
  EXPECT_NE(html.find("id=\"missing-plots\""), std::string::npos);
  EXPECT_NE(html.find("<table id=\"environment\">"), std::string::npos) << "the tables are still written";
}

TEST(ReportCommand, AMalformedRecordIsExitTwoNamingTheFile) {
  const std::string good = write_temp_file("a.json", step_record(1));
  const auto r = run_qsacheck("report " + good + " " + write_temp_file("bad.json", "[") + " -o /tmp/unused-report");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(only_json_line(r.out)["field"], "records[1]");
}

}  // namespace
}  // namespace qsa::records
