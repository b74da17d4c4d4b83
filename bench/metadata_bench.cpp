// BM_Metadata/<backend>/kind:<kind>/tokens:<N>/requests:<NR>: the SPEC 2 metadata build per step.
//
//  * reference: the CPU oracle (qsa::reference::build_metadata, validation included), wall time.
//  * cuda: our one-launch kernel, plain launches; cuda-pdl: the same with programmatic dependent
//    launch (each launch may start while the previous one ends); baseline: the two-launch baseline of
//    baseline_metadata.cu; BM_Floor/empty_kernel: an empty kernel. Each GPU benchmark first checks its output against
//    the reference (outputs poisoned), then captures 200 back-to-back launches in a CUDA graph and reports the time per
//    launch from CUDA events around one replay (UseManualTime); 50 replays per repetition, median of 9 repetitions
//    (every repetition in the JSON output). Inputs stay in the same device buffers, so they are L2-resident, as they
//    are in vLLM, which copies them to the device right before the launch.
//  * BM_Floor/empty_kernel/blocks:B: empty grids as large as ours (launch cost before any work).
//  * BM_MetadataTiling/cuda[-pdl]/...: the same kernel under other tilings (for tuning); with
//    --tuning_cases=N each N times, on buffers of its own (.../case:k).
//
// Items are rows (N). The run ends with a summary table (shape, reference, baseline, ours, floor).
// --quick: one repetition and the command-line min time (the bench-smoke CTest entry). Without a
// usable GPU only the reference benchmarks run; with QSA_REQUIRE_GPU=1 that is an error.

#include <benchmark/benchmark.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "qsa/reference/metadata.hpp"
#include "qsa/timing/metadata_shapes.hpp"
#include "qsa/types.hpp"
#include "support/bench_main.hpp"

#ifdef QSA_HAVE_CUDA
#include "qsa/cuda/device.hpp"
#include "qsa/cuda/metadata.hpp"
#include "qsa/cuda/metadata_buffers.hpp"
#include "qsa/timing/baseline_metadata.hpp"
#include "qsa/engine/check_engine.hpp"
#include "support/cuda_timer.hpp"
#endif

namespace qsa::bench {
namespace {

using namespace qsa::timing;

constexpr CacheKind kKinds[] = {CacheKind::kCompressed, CacheKind::kRing, CacheKind::kPassthrough};

std::string shape_suffix(CacheKind kind, const MetadataShape& shape) {
  return std::string("kind:") + to_string(kind) + "/tokens:" + std::to_string(shape.tokens) +
         "/requests:" + std::to_string(shape.requests);
}

// GPU benchmarks report the time per launch while each iteration replays kLaunchesPerGraph
// launches, so they run a fixed number of iterations (a MinTime of manual time would take
// kLaunchesPerGraph times longer in wall time).
constexpr int kGpuIterations = 50;
constexpr int kGpuRepetitions = 9;

void configure(benchmark::internal::Benchmark* b, bool gpu) {
  b->Unit(benchmark::kMicrosecond);
  if (gpu) b->UseManualTime();
  if (quick_mode) return;
  if (gpu) {
    b->Iterations(kGpuIterations)->Repetitions(kGpuRepetitions)->DisplayAggregatesOnly(true);
    return;
  }
  b->MinTime(0.1)->Repetitions(5)->ReportAggregatesOnly(true);
}

void run_reference(benchmark::State& state, const MetadataInput* input) {
  MetadataOutput out;
  Error error;
  for (auto _ : state) {
    const Status s = reference::build_metadata(*input, &out, &error);
    benchmark::DoNotOptimize(s);
    benchmark::DoNotOptimize(out.slot_mapping.data());
  }
  state.SetItemsProcessed(state.iterations() * input->batch.num_actual_tokens);
}

#ifdef QSA_HAVE_CUDA
constexpr int kLaunchesPerGraph = 200;
using Launcher = std::function<Status(const cuda::MetadataDeviceArgs&, cudaStream_t, Error*)>;

// One GPU benchmark: its input in persistent device buffers, checked once against the reference,
// then captured as a graph of kLaunchesPerGraph launches. Prepared on first use.
struct GpuCase {
  std::string name;
  MetadataInput input;
  Launcher launcher;  // empty: the floor (an empty kernel of `floor_blocks` blocks), or the ladder
  int floor_blocks = 1;
  int ladder_depth = -1;             // >= 0: the dependent-load ladder at this depth (floor_blocks blocks)
  bool ladder_programmatic = false;  // the ladder launched with PDL
  std::unique_ptr<cuda::MetadataBuffers> buffers;
  GraphReplayTimer timer;
  Preparation preparation;

  Status prepare(Error* error) {
    cudaStream_t stream = nullptr;
    if (Status s = timer.stream(&stream, error); s != Status::kOk) return s;
    if (ladder_depth >= 0) {
      static DependentLoadLadder* ladder = nullptr;
      if (ladder == nullptr) {
        auto created = std::make_unique<DependentLoadLadder>();
        if (Status s = created->create(error); s != Status::kOk) return s;
        ladder = created.release();  // lives until exit, shared by every depth
      }
      return timer.capture(
          kLaunchesPerGraph,
          [&](cudaStream_t st) { return ladder->launch(st, ladder_depth, floor_blocks, ladder_programmatic, error); },
          error);
    }
    if (!launcher)
      return timer.capture(
          kLaunchesPerGraph, [&](cudaStream_t st) { return launch_empty_kernel(st, floor_blocks, error); }, error);
    const cuda::MetadataBuffers::Capacity capacity{input.batch.num_actual_tokens, input.batch.num_requests(),
                                                   static_cast<int64_t>(input.block_table.storage.size())};
    if (Status s = cuda::MetadataBuffers::create(capacity, stream, &buffers, error); s != Status::kOk) return s;
    cuda::MetadataDeviceArgs args;
    if (Status s = buffers->upload(input, stream, &args, error); s != Status::kOk) return s;
    if (Status s = buffers->poison_outputs(args, stream, error); s != Status::kOk) return s;
    if (Status s = launcher(args, stream, error); s != Status::kOk) return s;
    MetadataOutput actual;
    if (Status s = buffers->download(args, stream, &actual, error); s != Status::kOk) return s;
    const engine::MetadataRun expected = engine::reference_metadata(input);
    if (expected.status != Status::kOk)
      return invalid(error, expected.error.field, expected.error.index, expected.error.rule, expected.error.message);
    actual.split = expected.output.split;  // the split is host metadata, not the kernel's
    const engine::MetadataRun run{Status::kOk, Error{}, std::move(actual)};
    if (auto f = engine::judge_metadata(input, run, engine::MetadataChecks{true, &expected}))
      return invalid(error, "output", f->index, "differs-from-reference", f->to_string());
    return timer.capture(
        kLaunchesPerGraph, [&](cudaStream_t st) { return launcher(args, st, error); }, error);
  }
};

void run_gpu(benchmark::State& state, GpuCase* c) {
  if (!time_graph_replays(
          state, c->name, c->preparation, [c](Error* error) { return c->prepare(error); }, c->timer))
    return;
  // Tokens per second; none for the floors (no tokens): with zero items in every repetition the
  // counter's cv is 0 / 0, which Google Benchmark writes as NaN, and a record with NaN is not JSON.
  if (c->input.batch.num_actual_tokens > 0)
    state.SetItemsProcessed(state.iterations() * c->input.batch.num_actual_tokens);
}

std::vector<std::unique_ptr<GpuCase>> gpu_cases;

GpuCase* add_gpu_case(const std::string& name, const MetadataInput& input, Launcher launcher) {
  gpu_cases.push_back(std::make_unique<GpuCase>());
  gpu_cases.back()->name = name;
  gpu_cases.back()->input = input;
  gpu_cases.back()->launcher = std::move(launcher);
  return gpu_cases.back().get();
}
#endif

std::vector<std::unique_ptr<MetadataInput>> inputs;

void register_benchmarks(bool gpu) {
  for (CacheKind kind : kKinds) {
    for (const MetadataShape& shape : metadata_bench_shapes()) {
      inputs.push_back(std::make_unique<MetadataInput>(make_shape_input(shape, kind, 1)));
      const MetadataInput* input = inputs.back().get();
      const std::string suffix = shape_suffix(kind, shape);
      configure(benchmark::RegisterBenchmark(("BM_Metadata/reference/" + suffix).c_str(), run_reference, input), false);
#ifdef QSA_HAVE_CUDA
      if (!gpu) continue;
      const std::string ours_name = "BM_Metadata/cuda/" + suffix;
      const std::string baseline_name = "BM_Metadata/baseline/" + suffix;
      GpuCase* ours = add_gpu_case(ours_name, *input, [](const cuda::MetadataDeviceArgs& a, cudaStream_t s, Error* e) {
        return cuda::launch_metadata(a, s, e);
      });
      GpuCase* baseline = add_gpu_case(baseline_name, *input, launch_baseline_metadata);
      configure(benchmark::RegisterBenchmark(baseline_name.c_str(), run_gpu, baseline), true);
      configure(benchmark::RegisterBenchmark(ours_name.c_str(), run_gpu, ours), true);
      const std::string pdl_name = "BM_Metadata/cuda-pdl/" + suffix;
      GpuCase* pdl = add_gpu_case(pdl_name, *input, [](const cuda::MetadataDeviceArgs& a, cudaStream_t s, Error* e) {
        cuda::MetadataLaunchConfig config;
        config.programmatic_launch = true;
        return cuda::launch_metadata(a, s, e, config);
      });
      configure(benchmark::RegisterBenchmark(pdl_name.c_str(), run_gpu, pdl), true);
#else
      (void)gpu;
#endif
    }
  }
#ifdef QSA_HAVE_CUDA
  if (!gpu) return;
  configure(benchmark::RegisterBenchmark("BM_Floor/empty_kernel", run_gpu,
                                         add_gpu_case("BM_Floor/empty_kernel", MetadataInput{}, Launcher{})),
            true);
  if (quick_mode) return;
  // Empty grids as large as ours (2 .. 161 blocks for the shapes above): launch cost before work.
  for (int blocks : {4, 32, 160}) {
    const std::string name = "BM_Floor/empty_kernel/blocks:" + std::to_string(blocks);
    GpuCase* c = add_gpu_case(name, MetadataInput{}, Launcher{});
    c->floor_blocks = blocks;
    configure(benchmark::RegisterBenchmark(name.c_str(), run_gpu, c), true);
  }
  // The latency ladder: k dependent global loads, then a store, in 4 blocks (like our small shapes)
  // plain; with PDL (the wait before the first load) also in 32 and 256 blocks (our ring kind's
  // grids at prefill 2 x 4096 and 16 x 4096), the bound of the PDL figures.
  for (const bool programmatic : {false, true}) {
    for (const int blocks : {4, 32, 256}) {
      if (!programmatic && blocks != 4) continue;
      for (int depth : {0, 1, 2, 3}) {
        const std::string name = std::string(programmatic ? "BM_Floor/pdl/" : "BM_Floor/") +
                                 "dependent_loads:" + std::to_string(depth) + "/blocks:" + std::to_string(blocks);
        GpuCase* c = add_gpu_case(name, MetadataInput{}, Launcher{});
        c->ladder_depth = depth;
        c->ladder_programmatic = programmatic;
        c->floor_blocks = blocks;
        configure(benchmark::RegisterBenchmark(name.c_str(), run_gpu, c), true);
      }
    }
  }
  // Tilings other than the default: the compressed kind (the one with k-work), and the ring kind
  // at the prefill shapes (few requests, the kind furthest from upstream there).
  struct Tiling {
    int threads, rows, work;
  };
  auto wide_tilings_for = [](const MetadataShape& shape) {
    if (shape.requests == 1024) return std::vector<Tiling>{{256, 1, 1}, {512, 1, 1}, {1024, 1, 1}, {1024, 2, 2}};
    if (shape.tokens == 1024 || shape.tokens == 65536)
      return std::vector<Tiling>{{256, 1, 1}, {256, 2, 2}, {512, 1, 1}, {1024, 1, 1}};
    if (shape.requests <= 16) return std::vector<Tiling>{{256, 1, 1}, {256, 2, 2}};
    return std::vector<Tiling>{};
  };
  // And 128 threads, the warp table's narrow blocks (NR <= 32 only).
  auto tilings_for = [&](const MetadataShape& shape) {
    std::vector<Tiling> tilings = wide_tilings_for(shape);
    if (!tilings.empty() && shape.requests <= cuda::kMaxWarpTableRequests) tilings.push_back(Tiling{128, 1, 1});
    return tilings;
  };
  for (const MetadataShape& shape : metadata_bench_shapes()) {
    const std::vector<Tiling> tilings = tilings_for(shape);
    for (CacheKind kind : {CacheKind::kCompressed, CacheKind::kRing}) {
      if (tilings.empty() || (kind == CacheKind::kRing && shape.requests > 16)) continue;
      const MetadataInput input = make_shape_input(shape, kind, 1);
      // Plain launches, and at the prefill shapes with PDL too (the mode the targets compare).
      for (const bool programmatic : {false, true}) {
        if (programmatic && shape.requests > 16) continue;
        for (const Tiling& tiling : tilings) {
          const cuda::MetadataLaunchConfig config{tiling.rows, tiling.work, tiling.threads, programmatic};
          const std::string variant =
              std::string(programmatic ? "BM_MetadataTiling/cuda-pdl/" : "BM_MetadataTiling/cuda/") +
              shape_suffix(kind, shape) + "/threads:" + std::to_string(tiling.threads) +
              "/rows_per_thread:" + std::to_string(tiling.rows) +
              "/work_rows_per_thread:" + std::to_string(tiling.work);
          for (int k = 1; k <= tuning_cases; ++k) {
            const std::string name = tuning_case_name(variant, k);
            GpuCase* c =
                add_gpu_case(name, input, [config](const cuda::MetadataDeviceArgs& a, cudaStream_t s, Error* e) {
                  return cuda::launch_metadata(a, s, e, config);
                });
            configure(benchmark::RegisterBenchmark(name.c_str(), run_gpu, c), true);
          }
        }
      }
    }
  }
#endif
}

// The table after the run: each shape's reference, baseline, ours and floor, and ours/floor.
void print_summary(const MedianReporter& reporter) {
  auto get = [&](const std::string& name) { return reporter.micros(name); };
  const double floor = get("BM_Floor/empty_kernel");
  std::printf("\nSummary: time per step (median), microseconds; ours/floor target <= 2\n");
  std::printf("%-8s %-12s %7s %6s %13s %11s %9s %9s %9s %10s\n", "shape", "kind", "N", "NR", "reference_cpu",
              "baseline", "ours", "ours-pdl", "floor", "ours/floor");
  for (CacheKind kind : kKinds) {
    for (const MetadataShape& shape : metadata_bench_shapes()) {
      const std::string suffix = shape_suffix(kind, shape);
      const double ref = get("BM_Metadata/reference/" + suffix);
      const double base = get("BM_Metadata/baseline/" + suffix);
      const double ours = get("BM_Metadata/cuda/" + suffix);
      const double pdl = get("BM_Metadata/cuda-pdl/" + suffix);
      auto cell = [](double v) {
        if (v < 0) return std::string("-");
        char text[32];
        std::snprintf(text, sizeof(text), "%.2f", v);
        return std::string(text);
      };
      const std::string ratio = ours > 0 && floor > 0 ? cell(ours / floor) : "-";
      std::printf("%-8s %-12s %7lld %6lld %13s %11s %9s %9s %9s %10s\n", shape.family.c_str(), to_string(kind),
                  static_cast<long long>(shape.tokens), static_cast<long long>(shape.requests), cell(ref).c_str(),
                  cell(base).c_str(), cell(ours).c_str(), cell(pdl).c_str(), cell(floor).c_str(), ratio.c_str());
    }
  }
  std::printf("\nOther GPU measurements (median, microseconds per launch)\n");
  for (const auto& [name, micros] : reporter.all_micros())
    if (name.rfind("BM_Floor/", 0) == 0 || name.rfind("BM_MetadataTiling/", 0) == 0)
      std::printf("%-110s %9.2f\n", name.c_str(), micros);
}

}  // namespace
}  // namespace qsa::bench

int main(int argc, char** argv) {
  return qsa::bench::run_benchmark_main(argc, argv, qsa::bench::register_benchmarks, qsa::bench::print_summary);
}
