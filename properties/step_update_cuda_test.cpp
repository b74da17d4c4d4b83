// GPU differential of the fused step update (label gpu): scenarios of every workload, every head
// dim, the real configuration, hand-built corner cases, step by step through the scenario runner
// (caches and q_out bitwise equal to the reference's, the model oracle, the SPEC 7.5 write check,
// outputs poisoned before every launch), and the device's conversions over every bit pattern.

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <utility>

#include "qsa/cuda/cuda_backend.hpp"
#include "qsa/cuda/step_update.hpp"
#include "qsa/reference/reference_backend.hpp"
#include "qsa/reference/step_update.hpp"
#include "qsa/engine/step_loop.hpp"
#include "qsa/engine/check_engine.hpp"
#include "qsa/engine/scenario_runner.hpp"
#include "qsa/traces/scenario_caches.hpp"
#include "qsa/traces/simulator.hpp"
#include "qsa/traces/workloads.hpp"
#include "qsa/validate.hpp"
#include "support/backend_under_test.hpp"
#include "support/gpu_guard.hpp"
#include "support/hand_scenarios.hpp"

namespace qsa {
namespace {

std::string describe(const std::optional<engine::RunFailure>& f) { return f ? engine::to_string(*f) : "passed"; }

engine::RunOptions every_check() {
  engine::RunOptions options;
  options.sweep_every = 8;
  return options;
}

TEST(StepUpdateCudaConversions, MatchTheReferenceForEveryRoundingClassAndEveryBf16) {
  QSA_SKIP_WITHOUT_GPU();
  std::vector<uint32_t> bits;
  const uint32_t lows[] = {0x0000, 0x0001, 0x7FFF, 0x8000, 0x8001, 0xFFFF};
  for (uint32_t high = 0; high < 0x10000; ++high)
    for (uint32_t low : lows) bits.push_back(high << 16 | low);
  std::vector<uint16_t> bf16;
  std::vector<uint8_t> e4m3;
  Error error;
  ASSERT_EQ(cuda::convert_on_device(bits, &bf16, &e4m3, &error), Status::kOk) << error;
  int64_t bf16_mismatches = 0;
  int64_t e4m3_mismatches = 0;
  for (size_t i = 0; i < bits.size(); ++i) {
    float f;
    std::memcpy(&f, &bits[i], 4);
    if (bf16[i] != bf16_from_float(f) && bf16_mismatches++ == 0)
      ADD_FAILURE() << std::hex << "bf16 of 0x" << bits[i] << ": device 0x" << bf16[i];
    const auto pattern = static_cast<uint16_t>(bits[i] >> 16);  // the high half sweeps every bf16 pattern
    // The pair conversion: the pattern in the low lane, its negation in the high lane.
    for (const auto& [lane, p] : {std::pair{0, pattern}, std::pair{1, static_cast<uint16_t>(pattern ^ 0x8000u)}}) {
      const uint8_t device = e4m3[2 * i + lane];
      if (device != e4m3_from_bf16(p) && e4m3_mismatches++ == 0)
        ADD_FAILURE() << std::hex << "e4m3 of bf16 0x" << p << " (lane " << lane << "): device 0x" << int{device}
                      << ", reference 0x" << int{e4m3_from_bf16(p)};
    }
  }
  EXPECT_EQ(bf16_mismatches, 0);
  EXPECT_EQ(e4m3_mismatches, 0);
}

TEST(StepUpdateCudaVsReference, HandScenariosMatchBitwiseWithEveryFeature) {
  QSA_SKIP_WITHOUT_GPU();
  cuda::CudaBackend backend;
  for (bool mrope : {false, true})
    for (StoreDtype dtype : {StoreDtype::kBf16, StoreDtype::kFp8E4m3})
      for (const traces::Scenario& s :
           {testing::hand_scenario(mrope, dtype), testing::hand_scenario_with_zero_length_request(mrope, dtype)}) {
        const auto failure = engine::run_scenario(s, backend, every_check());
        EXPECT_FALSE(failure.has_value()) << "mrope " << mrope << " " << to_string(dtype) << ": " << describe(failure);
      }
}

TEST(StepUpdateCudaVsReference, EveryWorkloadMatchesStepByStep) {
  QSA_SKIP_WITHOUT_GPU();
  cuda::CudaBackend backend;
  for (const std::string& name : traces::workload_names()) {
    for (uint64_t seed = 1; seed <= 2; ++seed) {
      const traces::Scenario s = traces::simulate(traces::workload_by_name(name), seed, testing::scaled(120));
      const auto failure = engine::run_scenario(s, backend, every_check());
      EXPECT_FALSE(failure.has_value()) << name << " seed " << seed << ": " << describe(failure);
    }
  }
}

// The kernel's two grids (cuda::StepGrid) run the same arithmetic with other block sizes, load
// batches and block orders; kAuto picks by the row count, so most scenarios would meet only the
// latency grid. Each grid, forced, plain and with PDL: the hand scenarios (also under the
// compute-sanitizer tools, whose filter takes HandScenarios*), then one scenario of every workload.
// Calls check(backend, name) with a backend on each grid, plain and with PDL.
template <typename Check>
void on_each_grid(Check check) {
  for (const cuda::StepGrid grid : {cuda::StepGrid::kLatency, cuda::StepGrid::kStreaming})
    for (const bool pdl : {false, true}) {
      cuda::CudaBackend backend;
      backend.set_step_grid(grid);
      backend.set_programmatic_launch(pdl);
      check(backend, std::string(grid == cuda::StepGrid::kLatency ? "latency" : "streaming") + " grid" +
                         (pdl ? ", pdl" : ""));
    }
}

TEST(StepUpdateCudaVsReference, HandScenariosMatchOnBothGrids) {
  QSA_SKIP_WITHOUT_GPU();
  on_each_grid([](cuda::CudaBackend& backend, const std::string& name) {
    for (bool mrope : {false, true})
      for (StoreDtype dtype : {StoreDtype::kBf16, StoreDtype::kFp8E4m3}) {
        const auto failure = engine::run_scenario(testing::hand_scenario(mrope, dtype), backend, every_check());
        EXPECT_FALSE(failure.has_value())
            << name << ", mrope " << mrope << " " << to_string(dtype) << ": " << describe(failure);
      }
  });
}

TEST(StepUpdateCudaVsReference, EveryWorkloadMatchesOnBothGrids) {
  QSA_SKIP_WITHOUT_GPU();
  on_each_grid([](cuda::CudaBackend& backend, const std::string& name) {
    for (const std::string& workload : traces::workload_names()) {
      const traces::Scenario s = traces::simulate(traces::workload_by_name(workload), 13, testing::scaled(60));
      const auto failure = engine::run_scenario(s, backend, every_check());
      EXPECT_FALSE(failure.has_value()) << name << ", " << workload << ": " << describe(failure);
    }
  });
}

// Programmatic dependent launch: the metadata kernel and the step update back to back, both
// launched with PDL, over the hand scenarios and every workload. The backend poisons the k-work
// before the metadata launch, so a step kernel that read it before the metadata kernel had
// written it (a missing or misplaced wait) would skip groups and differ from the reference.
TEST(StepUpdateCudaProgrammaticLaunch, MetadataThenStepBackToBackMatchesStepByStep) {
  QSA_SKIP_WITHOUT_GPU();
  cuda::CudaBackend backend;
  backend.set_programmatic_launch(true);
  for (bool mrope : {false, true})
    for (StoreDtype dtype : {StoreDtype::kBf16, StoreDtype::kFp8E4m3}) {
      const auto failure = engine::run_scenario(testing::hand_scenario(mrope, dtype), backend, every_check());
      EXPECT_FALSE(failure.has_value()) << "mrope " << mrope << " " << to_string(dtype) << ": " << describe(failure);
    }
  for (const std::string& name : traces::workload_names()) {
    const traces::Scenario s = traces::simulate(traces::workload_by_name(name), 11, testing::scaled(120));
    const auto failure = engine::run_scenario(s, backend, every_check());
    EXPECT_FALSE(failure.has_value()) << name << ": " << describe(failure);
  }
}

TEST(StepUpdateCudaVsReference, EveryHeadDimAndRotaryDimMatches) {
  QSA_SKIP_WITHOUT_GPU();
  cuda::CudaBackend backend;
  struct Geometry {
    int64_t d, rd, heads;
  };
  for (const Geometry g :
       {Geometry{32, 32, 1}, Geometry{64, 6, 3}, Geometry{128, 64, 4}, Geometry{256, 128, 2}, Geometry{512, 200, 1}}) {
    for (const char* workload : {"default", "mrope-fp8"}) {
      traces::Workload w = traces::workload_by_name(workload);
      w.config.head_dim = g.d;
      w.config.rotary_dim = g.rd;
      w.config.num_heads = g.heads;
      const traces::Scenario s = traces::simulate(w, 3, testing::scaled(40));
      const auto failure = engine::run_scenario(s, backend, every_check());
      EXPECT_FALSE(failure.has_value()) << "D " << g.d << " rd " << g.rd << " " << workload << ": "
                                        << describe(failure);
    }
  }
}

TEST(StepUpdateCudaVsReference, RealConfigurationMatchesInBf16AndFp8) {
  QSA_SKIP_WITHOUT_GPU();
  cuda::CudaBackend backend;
  for (StoreDtype dtype : {StoreDtype::kBf16, StoreDtype::kFp8E4m3}) {
    traces::Workload w = traces::workload_by_name("azure-conv");
    w.config.head_dim = 128;
    w.config.rotary_dim = 64;
    w.config.num_heads = 4;
    w.config.mrope = true;
    w.config.store_dtype = dtype;
    const traces::Scenario s = traces::simulate(w, 5, testing::scaled(80));
    const auto failure = engine::run_scenario(s, backend, every_check());
    EXPECT_FALSE(failure.has_value()) << to_string(dtype) << ": " << describe(failure);
  }
}

TEST(StepUpdateCudaVsReference, InvalidStepGivesTheReferenceErrorAndWritesNothing) {
  QSA_SKIP_WITHOUT_GPU();
  const traces::Scenario s = testing::hand_scenario();
  traces::ScenarioState state(s.config);
  StepInput in = state.step_input(s.steps[0], 0);
  in.ring_block_table = BlockTable::from_rows({{1}, {1}});  // both requests in ring block 1
  const StepCaches caches = traces::make_poisoned_caches(s.config);
  Error contract;
  ASSERT_EQ(validate_step(in, caches, &contract), Status::kInvalidInput);
  reference::ReferenceBackend reference;
  engine::StepChecks checks;
  const engine::StepRun expected = engine::run_step_update(reference, in, caches);
  ASSERT_EQ(expected.error, contract) << expected.error;
  checks.expected = &expected;
  cuda::CudaBackend backend;
  // The engine: the same status and error (field, index, rule), caches and q_out untouched.
  const auto finding = engine::judge_step_update(in, caches, engine::run_step_update(backend, in, caches), checks);
  EXPECT_FALSE(finding.has_value()) << finding->to_string();
}

TEST(StepUpdateCudaVsReference, GroupPositionOutOfRangeIsReportedLikeTheReference) {
  QSA_SKIP_WITHOUT_GPU();
  traces::Scenario s = testing::hand_scenario(/*mrope=*/true);
  traces::ScenarioState state(s.config);
  state.apply(s.steps[0], 0);  // request 2 has committed 9 positions; its next chunk starts mid-group
  const StepInput in = state.step_input(s.steps[1], 1);
  StepCaches cpu = traces::make_poisoned_caches(s.config);
  // Request 2's ring block 2 holds position 8 (the open group's first member) with t = max_position.
  const int64_t slot = 2 * s.config.ring_capacity + 8 % s.config.ring_capacity;
  const int64_t tail[3] = {s.config.max_position, 1, 1};
  std::memcpy(cpu.ring.bytes.data() + cpu.ring.layout.byte_offset(slot, ring_position_offset(s.config.head_dim)), tail,
              sizeof tail);
  reference::ReferenceBackend reference;
  const engine::StepRun expected = engine::run_step_update(reference, in, cpu);
  ASSERT_EQ(expected.status, Status::kOk) << expected.error;
  ASSERT_EQ(expected.output.step_status, StepStatus::kPositionOutOfRange);
  cuda::CudaBackend backend;
  engine::StepChecks checks;
  checks.expected = &expected;
  // The engine: the same step status, both caches and q_out bit for bit.
  const auto finding = engine::judge_step_update(in, cpu, engine::run_step_update(backend, in, cpu), checks);
  EXPECT_FALSE(finding.has_value()) << finding->to_string();
}

TEST(StepUpdateCudaRobustness, TwoRunsGiveIdenticalBytes) {
  QSA_SKIP_WITHOUT_GPU();
  const traces::Scenario s = traces::simulate(traces::workload_by_name("adversarial"), 11, 60);
  cuda::CudaBackend first;
  cuda::CudaBackend second;
  // Every step's digest (its outputs and the cache rows it wrote), then both whole caches.
  engine::RunOptions options;
  options.compute_digests = true;
  engine::ScenarioRunner a(s.config, first, options);
  engine::ScenarioRunner b(s.config, second, options);
  std::vector<traces::StepDigest> digests_a, digests_b;
  const auto keep = [](std::vector<traces::StepDigest>* into) {
    engine::StepObserver observer;
    observer.after_step = [into](int64_t, const traces::StepRecord&, const engine::ScenarioRunner& r, bool) {
      into->push_back(r.last_digest());
    };
    return observer;
  };
  ASSERT_FALSE(engine::run_steps(a, s.steps, keep(&digests_a)).failure.has_value());
  ASSERT_FALSE(engine::run_steps(b, s.steps, keep(&digests_b)).failure.has_value());
  for (size_t i = 0; i < digests_a.size(); ++i) ASSERT_EQ(digests_a[i], digests_b[i]) << "step " << i;
  ASSERT_EQ(a.caches().ring.bytes, b.caches().ring.bytes);
  ASSERT_EQ(a.caches().compressed.bytes, b.caches().compressed.bytes);
}

// The caches stay on the device between steps and only the chunks a step changed come back
// (optimized/src/cache_mirror.hpp): a byte the kernel writes outside the step's rows must come back
// too, for the write check. After the real kernel of step 5 a stray byte lands in compressed slot
// 63 (no step of 4-7 of the hand scenario writes it); the whole comparison after step 7 names it.
TEST(StepUpdateCudaResidentCaches, AStrayWriteOutsideTheStepsRowsComesBackForTheWriteCheck) {
  QSA_SKIP_WITHOUT_GPU();
  const traces::Scenario s = testing::hand_scenario();
  const traces::ScenarioConfig& config = s.config;
  const CacheLayout layout = traces::make_caches(config, 0).compressed.layout;
  auto steps = std::make_shared<int64_t>(0);
  cuda::CudaBackend backend(
      "cuda-stray-write",
      [](const cuda::MetadataDeviceArgs& args, cudaStream_t stream, Error* error) {
        return cuda::launch_metadata(args, stream, error);
      },
      [steps, layout](const cuda::StepUpdateDeviceArgs& args, cudaStream_t stream, Error* error) {
        const Status status = cuda::launch_step_update(args, stream, error);
        if (status == Status::kOk && (*steps)++ == 5)
          if (cudaMemsetAsync(static_cast<uint8_t*>(args.compressed) + layout.byte_offset(63, 5), 0x5C, 1, stream) !=
              cudaSuccess)
            return Status::kInternalError;
        return status;
      });
  engine::RunOptions options;
  options.full_compare_every = 4;
  const auto failure = engine::run_scenario(s, backend, options);
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->step, 7) << describe(failure);
  EXPECT_EQ(failure->check, engine::Check::kWrites) << describe(failure);
  EXPECT_EQ(failure->field, "cache.compressed");
  EXPECT_EQ(failure->index, 63);
}

// One backend through scenarios whose RoPE tables have the same size and different contents (the
// fuzz replay's pattern): each scenario's table is freed before the next one is built, so the
// allocator tends to hand out the same address again. The backend once kept only the address of
// the table it had uploaded and rotated with the previous scenario's (fuzz/FINDINGS.md, finding 9).
TEST(StepUpdateCudaRobustness, OneBackendUsesEachScenariosOwnRopeTable) {
  QSA_SKIP_WITHOUT_GPU();
  cuda::CudaBackend backend;
  for (const double theta : {1e4, 1e6, 1e4, 1e7}) {
    traces::Workload w = traces::workload_by_name("default");
    w.config.rope_theta = theta;
    const traces::Scenario s = traces::simulate(w, 7, testing::scaled(20));
    const auto failure = engine::run_scenario(s, backend, every_check());
    EXPECT_FALSE(failure.has_value()) << "rope_theta " << theta << ": " << describe(failure);
  }
}

TEST(StepUpdateCudaLimits, LargestPrefillMatchesTheReference) {
  QSA_SKIP_WITHOUT_GPU();
  // N = 65 536 rows: 16 prefill chunks of 4096 with the real head geometry, one step.
  traces::Scenario s;
  s.config.seed = 9;
  s.config.head_dim = 128;
  s.config.rotary_dim = 64;
  s.config.num_heads = 4;
  s.config.mrope = true;
  s.config.compress_ratio = 4;
  s.config.block_size = 64;
  s.config.num_speculative_tokens = 3;
  s.config.ring_capacity = 8;
  s.config.max_position = 4096 + 128;
  s.config.num_compressed_blocks = 16 * 64 + 8;
  s.config.num_ring_blocks = 16;
  traces::StepRecord step;
  step.reorder_batch_threshold = 4;
  for (int r = 0; r < 16; ++r) {
    std::vector<int32_t> blocks;
    for (int b = 0; b < 64; ++b) blocks.push_back(r * 64 + b);
    step.chunks.push_back(traces::ChunkRecord{r, -1, 4096, 0, 4096, 4096, blocks, r, {}});
  }
  s.steps.push_back(step);
  for (const cuda::StepGrid grid : {cuda::StepGrid::kAuto, cuda::StepGrid::kLatency}) {
    cuda::CudaBackend backend;
    backend.set_step_grid(grid);
    const auto failure = engine::run_scenario(s, backend);
    EXPECT_FALSE(failure.has_value()) << (grid == cuda::StepGrid::kAuto ? "auto" : "latency") << " grid: "
                                      << describe(failure);
  }
}

}  // namespace
}  // namespace qsa
