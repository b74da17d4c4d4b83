// Caches that follow the blocks in use: a scenario that declares 2^22 compressed blocks (1 GiB of
// dense cache per copy) and uses 16 costs memory for those it uses, passes as before, and a stray
// write into a block no step ever names is still caught by the whole-cache comparison.

#include <gtest/gtest.h>

#include <fstream>

#include <unistd.h>

#include "qsa/reference/reference_backend.hpp"
#include "qsa/engine/step_loop.hpp"
#include "qsa/engine/scenario_runner.hpp"
#include "support/hand_scenarios.hpp"

namespace qsa {
namespace {

constexpr int64_t kDeclaredBlocks = int64_t{1} << 22;

traces::Scenario declared_large() {
  traces::Scenario s = testing::hand_scenario();
  s.config.num_compressed_blocks = kDeclaredBlocks;  // the hand scenario names blocks 3-15 only
  return s;
}

int64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0;
  int64_t resident = 0;
  statm >> size >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

TEST(SparseCaches, ResidentMemoryFollowsTheBlocksInUse) {
  const traces::Scenario s = declared_large();
  const int64_t dense = traces::compressed_cache_layout(s.config).size_bytes();
  ASSERT_EQ(dense, int64_t{1} << 30);
  const int64_t before = resident_bytes();
  reference::ReferenceBackend backend;
  engine::ScenarioRunner runner(s.config, backend);  // its caches and the write check's copy
  const auto f = engine::run_steps(runner, s.steps).failure;
  ASSERT_FALSE(f.has_value()) << engine::to_string(*f);
  const int64_t grown = resident_bytes() - before;
  EXPECT_LT(grown, dense / 16) << "resident memory grew by " << grown << " bytes; two dense copies are " << 2 * dense;
}

// Flips one byte of the last declared block (never named by any step) after step `at`.
class FarStrayWriteBackend : public reference::ReferenceBackend {
 public:
  explicit FarStrayWriteBackend(int64_t at) : at_(at) {}
  std::string name() const override { return "far-stray-write"; }
  Status step_update(const StepInput& in, StepCaches* caches, StepOutput* out, Error* error) override {
    const Status s = ReferenceBackend::step_update(in, caches, out, error);
    if (s != Status::kOk) return s;  // the runner's rejected calls before some steps are not steps
    if (step_++ == at_) caches->compressed.bytes[static_cast<size_t>(caches->compressed.layout.byte_offset(kSlot, 1))] ^= 0x10;
    return s;
  }
  static constexpr int64_t kSlot = (kDeclaredBlocks - 1) * 4 + 2;  // S = 4 rows per block

 private:
  int64_t at_;
  int64_t step_ = 0;
};

TEST(SparseCaches, StrayWriteIntoANeverUsedFarBlockIsCaughtByTheFullComparison) {
  const traces::Scenario s = declared_large();
  for (bool differential : {true, false}) {
    FarStrayWriteBackend backend(5);
    engine::RunOptions options;
    options.differential = differential;
    options.full_compare_every = 4;
    const auto failure = engine::run_scenario(s, backend, options);
    ASSERT_TRUE(failure.has_value()) << differential;
    EXPECT_EQ(failure->step, 7);  // steps 4-7 compared whole after step 7
    EXPECT_EQ(failure->check, engine::Check::kWrites);
    EXPECT_EQ(failure->field, "cache.compressed");
    EXPECT_EQ(failure->index, FarStrayWriteBackend::kSlot);
  }
}

TEST(SparseCaches, StrayWriteIntoANeverUsedFarBlockIsCaughtAtItsStepWhenEveryStepComparesWhole) {
  const traces::Scenario s = declared_large();
  for (bool differential : {true, false}) {
    FarStrayWriteBackend backend(5);
    engine::RunOptions options;
    options.differential = differential;
    options.full_compare_every = 1;
    const auto failure = engine::run_scenario(s, backend, options);
    ASSERT_TRUE(failure.has_value()) << differential;
    EXPECT_EQ(failure->step, 5);
    EXPECT_EQ(failure->check, differential ? engine::Check::kStepDifferential : engine::Check::kWrites);
    EXPECT_EQ(failure->index, FarStrayWriteBackend::kSlot);
  }
}

}  // namespace
}  // namespace qsa
