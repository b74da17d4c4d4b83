// engine::run_campaign as a library call: it prints nothing and writes no file itself; progress,
// stop requests and reproducers reach the caller through the observer, and backends through the
// hooks. A stand-in kernel that flips one q_out byte from its 5th step on is found, shrunk and
// handed over as a reproducer that names its replay command.

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <memory>
#include <string>

#include "qsa/engine/campaign.hpp"
#include "qsa/engine/exit_codes.hpp"
#include "qsa/reference/reference_backend.hpp"
#include "qsa/traces/workloads.hpp"

namespace qsa::engine {
namespace {

// The reference, but from its 5th step on the first q_out byte is wrong (a kernel from outside).
class FlipsQOut : public reference::ReferenceBackend {
 public:
  std::string name() const override { return "flips-q-out"; }
  Status step_update(const StepInput& input, StepCaches* caches, StepOutput* output, Error* error) override {
    const Status status = reference::ReferenceBackend::step_update(input, caches, output, error);
    if (status == Status::kOk && ++steps_ >= 5 && !output->q_out.empty()) output->q_out[0] ^= 0x40;
    return status;
  }

 private:
  int steps_ = 0;
};

std::unique_ptr<Backend> make(const std::string& name, int) {
  if (name == "flips-q-out") return std::make_unique<FlipsQOut>();
  return std::make_unique<reference::ReferenceBackend>();
}

struct Recorder {
  std::atomic<int> progress{0}, lines{0}, phases{0};
  std::map<std::string, std::string> files;
  CampaignObserver observer() {
    CampaignObserver o;
    o.progress = [this](const std::string&) { ++progress; };
    o.line = [this](const std::string&) { ++lines; };
    o.new_phase = [this] { ++phases; };
    o.write_file = [this](const std::string& path, const std::string& text) -> std::optional<std::string> {
      files[path] = text;
      return std::nullopt;
    };
    return o;
  }
};

CampaignOptions small_campaign(const std::string& backend) {
  CampaignOptions options;
  options.backends = {backend};
  options.jobs = workload_campaign(traces::workload_by_name("azure-conv"), 1, 2, 12);
  options.batches = 20;
  options.out_dir = "/nonexistent-folder";  // the observer writes, not the engine
  return options;
}

TEST(RunCampaign, PassesOnTheReferenceAndPrintsNothing) {
  Recorder recorder;
  CampaignHooks hooks;
  hooks.make_backend = make;
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  const CheckReport report = run_campaign(small_campaign("reference"), hooks, recorder.observer());
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(report.exit_code(), kExitOk);
  EXPECT_EQ(report.jobs.size(), 2u);
  EXPECT_TRUE(report.kernel_path_steps.empty());  // no KernelPaths hook: nothing counted
  EXPECT_GT(recorder.lines.load(), 0);  // each job's end
  EXPECT_GT(recorder.phases.load(), 0);
  EXPECT_TRUE(recorder.files.empty());
}

TEST(RunCampaign, AFindingReachesTheCallerAsAReproducerToWrite) {
  Recorder recorder;
  CampaignHooks hooks;
  hooks.make_backend = make;
  const CheckReport report = run_campaign(small_campaign("flips-q-out"), hooks, recorder.observer());
  ASSERT_EQ(report.exit_code(), kExitMismatch);
  ASSERT_EQ(recorder.files.size(), 1u);
  const auto& [path, text] = *recorder.files.begin();
  EXPECT_EQ(report.reproducer, path);
  EXPECT_EQ(path.rfind("/nonexistent-folder/", 0), 0u) << path;
  EXPECT_NE(text.find("step"), std::string::npos);  // a scenario file
  EXPECT_NE(report.replay_command.find("flips-q-out"), std::string::npos) << report.replay_command;
}

TEST(RunCampaign, WithoutAFileWriterTheReproducerIsListedAsUnwritten) {
  CampaignHooks hooks;
  hooks.make_backend = make;
  const CheckReport report = run_campaign(small_campaign("flips-q-out"), hooks, CampaignObserver{});
  EXPECT_EQ(report.exit_code(), kExitMismatch);
  ASSERT_EQ(report.unwritten.size(), 1u);
  EXPECT_NE(report.unwritten[0].find("no file writer"), std::string::npos) << report.unwritten[0];
  EXPECT_TRUE(report.reproducer.empty());
}

TEST(RunCampaign, AStopRequestEndsItWithAPartialReport) {
  Recorder recorder;
  CampaignHooks hooks;
  hooks.make_backend = make;
  CampaignObserver observer = recorder.observer();
  observer.stop_requested = [] { return true; };
  observer.stop_reason = [] { return std::string("the test"); };
  const CheckReport report = run_campaign(small_campaign("reference"), hooks, observer);
  EXPECT_EQ(report.stopped_by, "the test");
  EXPECT_EQ(report.exit_code(), kExitIncomplete);
}

}  // namespace
}  // namespace qsa::engine
