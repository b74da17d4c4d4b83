// The output layer and the number options of qsacheck (cli/src/output_file.hpp,
// number_options.hpp): atomic writes, paths refused before any work, a lost report that keeps
// the verdict's exit code, readable ranges; and a stopped campaign or mutants run that still writes
// its report.

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "number_options.hpp"
#include "output_file.hpp"
#include "qsa/traces/json_reader.hpp"
#include "run_command.hpp"

namespace qsa {
namespace {

using testing::read_file;
using testing::temp_dir;

Error error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.error();
  }
  return Error{"", -1, "no error", ""};
}

TEST(OutputLayer, AtomicWriteReplacesTheWholeFileAndLeavesNoTemporary) {
  const std::string dir = temp_dir();
  const std::string path = dir + "/report.json";
  std::ofstream(path) << "an older and much longer report that must not survive in part\n";
  ASSERT_FALSE(cli::write_output_file(path, "{}\n").has_value());
  EXPECT_EQ(read_file(path), "{}\n");
  size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1u) << "the temporary file is renamed, never left behind";
  struct stat info {};
  ASSERT_EQ(stat(path.c_str(), &info), 0);
  EXPECT_NE(info.st_mode & S_IRGRP, 0u) << "a report is an ordinary file, not mkstemp's private 0600";
}

TEST(OutputLayer, AFailedWriteSaysWhyAndKeepsTheVerdict) {
  EXPECT_TRUE(cli::write_output_file("/nonexistent-folder/report.json", "{}").has_value());
  cli::ReportOutput output("/nonexistent-folder/report.json");
  EXPECT_EQ(output.finish({{"exit_code", 1}}, 1), 1) << "a disagreement stays exit 1 when the report is lost";
  ASSERT_EQ(output.lost_outputs().size(), 1u);
  EXPECT_NE(output.lost_outputs()[0].find("/nonexistent-folder/report.json"), std::string::npos);
  cli::ReportOutput passed("/nonexistent-folder/report.json");
  EXPECT_EQ(passed.finish({{"exit_code", 0}}, 0), 0);
}

TEST(OutputLayer, PathsAreRefusedBeforeAnyWorkAndNothingIsCreated) {
  const std::string dir = temp_dir();
  EXPECT_EQ(error_of([&] { cli::check_output_file(dir, "--json"); }).rule, "unwritable") << "a folder";
  EXPECT_EQ(error_of([&] { cli::check_output_file(dir + "/missing/r.json", "--json"); }).field, "--json");
  EXPECT_EQ(error_of([&] { cli::check_output_directory(dir + "/missing", "--out"); }).rule, "unwritable");
  std::ofstream(dir + "/file") << "x";
  EXPECT_EQ(error_of([&] { cli::check_output_directory(dir + "/file", "--out"); }).rule, "unwritable");
  EXPECT_EQ(error_of([&] { cli::check_output_file(dir + "/new.json", "--json"); }).rule, "no error");
  EXPECT_FALSE(std::filesystem::exists(dir + "/new.json")) << "checking a path writes nothing";
}

TEST(NumberOptions, OutOfRangeAndMalformedNumbersAreErrorsWithReadableRanges) {
  EXPECT_EQ(cli::parse_integer_option("--steps", "600", 1, int64_t{1} << 24), 600);
  const Error big = error_of([] { cli::parse_integer_option("--steps", "9223372036854775808", 1, int64_t{1} << 24); });
  EXPECT_EQ(big.rule, "out-of-range");
  EXPECT_EQ(big.message, "9223372036854775808 is outside [1, 2^24]");
  EXPECT_EQ(error_of([] { cli::parse_integer_option("--steps", "0x10", 1, 10); }).rule, "not-an-integer");
  EXPECT_EQ(error_of([] { cli::parse_integer_option("--steps", "", 1, 10); }).rule, "not-an-integer");
  const Error long_text = error_of([] { cli::parse_integer_option("--steps", std::string(400, '9'), 1, 10); });
  EXPECT_LT(long_text.message.size(), 80u) << "a 400-digit argument is not echoed whole: " << long_text.message;
  EXPECT_EQ(cli::parse_seed_option("--seed", "18446744073709551615"), 18446744073709551615ull);
  EXPECT_EQ(error_of([] { cli::parse_seed_option("--seed", "-1"); }).rule, "out-of-range");
  EXPECT_EQ(error_of([] { cli::parse_seed_option("--seed", "18446744073709551616"); }).rule, "out-of-range");
  EXPECT_EQ(cli::readable_integer(int64_t{1} << 40), "2^40");
  EXPECT_EQ(cli::readable_integer(9223372036854775807), "2^63-1");
  EXPECT_EQ(cli::readable_integer(1000), "1000");
}

TEST(StopRequest, SigtermWritesThePartialReportAndExits3) {
  const std::string dir = temp_dir();
  const std::string report = dir + "/report.json";
  // timeout sends SIGTERM after 3 s; --preserve-status returns qsacheck's own exit code.
  const std::string command = std::string("timeout --preserve-status -s TERM 3 ") + QSACHECK_BINARY +
                              " check --workload default --steps 1000000 --scenarios 1 --batches 1 --json " + report +
                              " > /dev/null 2>&1";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << "qsacheck must exit on SIGTERM, not die of it";
  EXPECT_EQ(WEXITSTATUS(status), 3) << "nothing was found, the rest did not run";
  const nlohmann::json j = nlohmann::json::parse(read_file(report));
  EXPECT_EQ(j["stopped_by"], "SIGTERM");
  EXPECT_EQ(j["exit_code"], 3);
  ASSERT_FALSE(j["not_run"].empty());
  EXPECT_NE(j["not_run"][0].get<std::string>().find("stopped by SIGTERM"), std::string::npos) << j.dump();
  EXPECT_GT(j["coverage"]["steps"].get<int64_t>(), 0) << "what ran before the signal is reported";
}

// mutants over many planted bugs: a signal ends it with the table of the bugs that ran, the count
// of those that did not, and exit 3 (every bug that ran was caught). On the default workload the
// first planted bugs are caught within a second, and one that needs MRoPE or fp8 then runs its
// million steps until the signal, however fast the machine.
TEST(StopRequest, SigtermEndsMutantsWithTheBugsThatRan) {
  const std::string dir = temp_dir();
  const std::string report = dir + "/mutants.json";
  const std::string command = std::string("timeout --preserve-status -s TERM 4 ") + QSACHECK_BINARY +
                              " mutants --workload default --steps 1000000 --json " + report + " > /dev/null 2>&1";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << "qsacheck must exit on SIGTERM, not die of it";
  EXPECT_EQ(WEXITSTATUS(status), 3);
  const nlohmann::json j = nlohmann::json::parse(read_file(report));
  EXPECT_EQ(j["stopped_by"], "SIGTERM");
  EXPECT_EQ(j["survivors"], 0);
  EXPECT_GT(j["not_run"].get<int64_t>(), 0);
  EXPECT_GT(j["planted_bugs"].size(), 0u) << "the bugs that ran before the signal are reported";
  for (const auto& row : j["planted_bugs"]) EXPECT_TRUE(row["caught"].get<bool>()) << row.dump();
}

}  // namespace
}  // namespace qsa
