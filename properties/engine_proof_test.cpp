// Proof that one checking engine serves every entry point: two planted bugs that only show on
// invalid input (correct outputs but a 1-based error index; outputs written on a rejected input)
// give the same finding (check, field, index: Finding::key()) through `qsacheck check`,
// `qsacheck replay`, the property suite's differential check and the fuzz replay, on the same
// input. The expected key is computed here by the engine itself, never written down.
// The benchmarks' verify step runs CUDA kernels, not backends: it calls judge_metadata() and
// judge_step_update() and is exercised by the GPU bench runs (docs/design.md).

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "qsa/backends/planted.hpp"
#include "qsa/engine/check_engine.hpp"
#include "qsa/traces/json_codec.hpp"
#include "qsa/traces/json_reader.hpp"
#include "support/differential.hpp"

namespace qsa {
namespace {

struct Output {
  int exit_code = -1;
  std::string text;  // stdout and stderr
};

Output run(const std::string& command) {
  Output out;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return out;
  std::array<char, 4096> buffer{};
  while (fgets(buffer.data(), static_cast<int>(buffer.size()), pipe) != nullptr) out.text += buffer.data();
  const int status = pclose(pipe);
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return out;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The key the engine gives this bug on this input, and the same finding through the property
// suite's differential check and through `qsacheck replay` of the input written as JSON.
std::string expect_same_finding_in_process_and_replay(const std::string& bug, const MetadataInput& input,
                                                      const std::string& json_file) {
  auto backend = backends::make_planted_backend(bug);
  if (!backend) ADD_FAILURE() << "no planted bug named " << bug;
  if (!backend) return "";
  const auto finding = engine::check_metadata_against_reference(*backend, input);
  EXPECT_TRUE(finding.has_value()) << bug << " passes the engine on its own reproducer";
  if (!finding) return "";
  const std::string key = finding->key();

  const auto differential = testing::differential_failure(*backend, input);
  EXPECT_TRUE(differential.has_value() && differential->find(": " + key + ": ") != std::string::npos)
      << "property suite: " << differential.value_or("(passed)") << "\nengine: " << key;

  const Output replayed = run(std::string(QSACHECK_BINARY) + " replay --backend " + bug + " " + json_file);
  EXPECT_EQ(replayed.exit_code, 1) << replayed.text;
  EXPECT_NE(replayed.text.find("FAIL " + key + ": "), std::string::npos) << replayed.text << "\nengine: " << key;
  return key;
}

class EngineProof : public ::testing::TestWithParam<const char*> {
 protected:
  std::string dir() const {
    const std::string d = ::testing::TempDir() + "engine_proof_" + std::to_string(::getpid());
    std::filesystem::create_directories(d);
    return d;
  }
};

TEST_P(EngineProof, CheckReplayAndThePropertySuiteGiveTheSameFinding) {
  const std::string bug = GetParam();
  const std::string out = dir();
  const Output checked = run(std::string(QSACHECK_BINARY) + " check --backend " + bug + " --batches 50 --out " + out);
  ASSERT_EQ(checked.exit_code, 1) << checked.text;
  const auto at = checked.text.find("reproducer: ");
  ASSERT_NE(at, std::string::npos) << checked.text;
  const std::string file = checked.text.substr(at + 12, checked.text.find('\n', at) - at - 12);
  const MetadataInput input = traces::metadata_input_from_json(traces::parse_json(read_file(file)));
  const std::string key = expect_same_finding_in_process_and_replay(bug, input, file);
  EXPECT_NE(checked.text.find(": " + key + ": "), std::string::npos) << checked.text << "\nengine: " << key;
}

TEST_P(EngineProof, TheFuzzReplayGivesTheSameFindingAsCheckAndReplay) {
  const std::string bug = GetParam();
  // The fuzz replay stops (traps) at the first corpus input the bug trips on and prints it as JSON.
  const Output fuzzed = run("QSA_FUZZ_BACKEND=" + bug + " " + std::string(FUZZ_METADATA_BINARY) + " " +
                            std::string(QSA_SOURCE_DIR) + "/fuzz/corpus/fuzz_metadata");
  ASSERT_NE(fuzzed.exit_code, 0) << fuzzed.text;
  const auto line = fuzzed.text.find("FINDING fuzz_metadata: ");
  ASSERT_NE(line, std::string::npos) << fuzzed.text;
  const auto json_at = fuzzed.text.find("  input: ", line);
  ASSERT_NE(json_at, std::string::npos) << fuzzed.text;
  const std::string json = fuzzed.text.substr(json_at + 9, fuzzed.text.find('\n', json_at) - json_at - 9);
  const std::string file = dir() + "/fuzz-input.json";
  std::ofstream(file) << json << "\n";
  const MetadataInput input = traces::metadata_input_from_json(traces::parse_json(json));
  const std::string key = expect_same_finding_in_process_and_replay(bug, input, file);
  const std::string finding_line = fuzzed.text.substr(line, json_at - line);
  EXPECT_NE(finding_line.find(": " + key + ": "), std::string::npos) << finding_line << "\nengine: " << key;
}

INSTANTIATE_TEST_SUITE_P(PlantedValidationBugs, EngineProof,
                         ::testing::Values("bug:error-index-one-based", "bug:clears-output-before-validating"),
                         [](const ::testing::TestParamInfo<const char*>& p) {
                           return std::string(p.param).find("index") != std::string::npos ? "ErrorIndex"
                                                                                          : "WritesOnInvalid";
                         });

}  // namespace
}  // namespace qsa
