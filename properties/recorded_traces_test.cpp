// The recorded traces (traces/recorded/*.scenario) replayed with every check of the scenario
// runner and compared, step by step, with the digests the reference recorded: on the reference
// always (label trace), and on the CUDA backend when the build has it and a device (labels trace
// and gpu; skipped otherwise, a failure with QSA_REQUIRE_GPU=1). A mismatch names the step and the
// first differing output, and prints the command that replays it. `qsacheck record-expected`
// rewrites the digests after a deliberate change (never a test).

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "qsa/backends/registry.hpp"
#include "qsa/reference/reference_backend.hpp"
#include "qsa/traces/scenario_file.hpp"
#include "qsa/engine/replay_command.hpp"
#include "qsa/engine/step_loop.hpp"
#include "qsa/engine/scenario_runner.hpp"
#include "support/gpu_guard.hpp"

namespace qsa {
namespace {

namespace fs = std::filesystem;

// The source tree's traces/recorded, or $QSA_RECORDED_TRACES_DIR (the GPU bundle runs elsewhere).
std::string recorded_traces_dir() {
  const char* dir = std::getenv("QSA_RECORDED_TRACES_DIR");
  return dir != nullptr && *dir != '\0' ? dir : QSA_RECORDED_TRACES_DIR;
}

// The traces' file names without ".scenario" (short test names; the path is rebuilt per test).
std::vector<std::string> recorded_trace_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(recorded_traces_dir(), ec))
    if (entry.is_regular_file() && entry.path().extension() == ".scenario")
      names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string trace_path(const std::string& name) {
  return (fs::path(recorded_traces_dir()) / (name + ".scenario")).string();
}

void replay_with_digests(const std::string& path, Backend& backend) {
  const traces::ScenarioFile file = traces::read_scenario_file(path);
  ASSERT_FALSE(file.digests.empty()) << path << " carries no digests: qsacheck record-expected " << path;
  ASSERT_EQ(file.digests.size(), file.scenario.steps.size());
  engine::RunOptions options;
  options.expected_digests = &file.digests;
  engine::ScenarioRunner runner(file.scenario.config, backend, options);
  if (const auto failure = engine::run_steps(runner, file.scenario.steps).failure)
    FAIL() << path << ": " << engine::to_string(*failure) << "\n  replay: " << engine::replay_command(backend.name(), path);
  EXPECT_TRUE(runner.step_update_supported())
      << backend.name() << " has no step update: only the metadata digests were compared";
}

class RecordedTrace : public ::testing::TestWithParam<std::string> {};

TEST_P(RecordedTrace, ReferenceMatchesEveryRecordedDigest) {
  reference::ReferenceBackend reference;
  replay_with_digests(trace_path(GetParam()), reference);
}

TEST_P(RecordedTrace, CudaMatchesEveryRecordedDigest) {
  QSA_SKIP_WITHOUT_GPU();
  auto cuda = BackendRegistry::global().create("cuda");
  if (!cuda) {
    if (testing::gpu_required()) FAIL() << "QSA_REQUIRE_GPU=1 but this build registers no \"cuda\" backend";
    GTEST_SKIP() << "this build registers no \"cuda\" backend yet (qsa/backends/builtin.hpp)";
  }
  std::string reason;
  ASSERT_EQ(cuda->probe(&reason), Status::kOk) << reason;
  replay_with_digests(trace_path(GetParam()), *cuda);
}

std::string trace_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Recorded, RecordedTrace, ::testing::ValuesIn(recorded_trace_names()), trace_name);

TEST(RecordedTraces, AHandfulUnderOneMebibyteTogether) {
  const std::vector<std::string> names = recorded_trace_names();
  EXPECT_GE(names.size(), 5u) << "traces/recorded/ should hold the workload models' traces";
  uintmax_t bytes = 0;
  for (const std::string& name : names) bytes += fs::file_size(trace_path(name));
  EXPECT_LE(bytes, uintmax_t{1} << 20) << "recorded traces total " << bytes << " bytes";
}

}  // namespace
}  // namespace qsa
