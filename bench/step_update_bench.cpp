// BM_StepUpdate/<backend>/shape:<s>/tokens:<N>/requests:<NR>/dtype:<d>: one step update per launch
// with the real configuration (D = 128, HQ = 4, rd = 64, C = 4, MRoPE with positions cached).
//
//  * cuda: our fused launch, plain (serialized launches); cuda-pdl: the same launched with
//    programmatic dependent launch (each launch's prologue overlaps the previous one's tail);
//    cuda-v5: version 5 of the kernel (no PDL wait or trigger), plain; baseline: the unfused
//    three-launch baseline (baseline_step_update.cu); reference: the CPU oracle (small shapes only).
//  * BM_StepChain/<cuda|cuda-pdl>: the metadata kernel (compressed kind) then the step update, per
//    step, both plain or both PDL: the time per metadata + step pair. Each GPU benchmark first checks caches, q_out
//    and the status against the reference, then captures a CUDA graph of back-to-back launches that
//    rotate through enough input sets (each its own q, k, q_out and positions) that the working set is
//    four times the 60 MB L2 (backends::CudaDeviceStep: each set has its own inputs and q_out; the caches,
//    the ring block table, the k-work items, the RoPE table and the weights are shared), and reports the
//    time per launch from CUDA events around one replay (UseManualTime), median of 9 repetitions (every
//    repetition in the JSON output). Bytes processed: step_bytes() (what must move).
//  * BM_Copy/device_to_device: a 1 GiB device-to-device copy, bytes read plus written: the ceiling.
//  * BM_CopySameSize/<kernel|device_to_device>/<shape>/bytes:<b>: the copy kernel, and
//    cudaMemcpyAsync, moving the shape's step_bytes() (half read, half written), rotated past L2
//    like the step: what a launch of that size can reach (the summary's copy-same: the faster of
//    the two). Not BM_Copy/: bench records take their ceiling from the fastest BM_Copy.
//  * BM_Floor/empty_kernel: an empty kernel launched the same way.
// The run ends with a summary table (shape, dtype, ours, baseline, floor, GB/s, share of the copy
// ceiling, the same-size copy and ours against it). --quick: one repetition, the CPU part only
// without a device (the bench-smoke entry). --tuning_cases=N: every BM_StepUpdateTuning variant N
// times, on buffers of its own (.../case:k), so that an A/B sees the spread between two cases.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "qsa/reference/step_update.hpp"
#include "qsa/timing/backend_benchmarks.hpp"
#include "qsa/timing/step_shapes.hpp"
#include "qsa/engine/check_engine.hpp"
#include "support/bench_main.hpp"

#ifdef QSA_HAVE_CUDA
#include "qsa/backends/cuda_device_step.hpp"
#include "qsa/cuda/cuda_check.hpp"
#include "qsa/cuda/device.hpp"
#include "qsa/timing/baseline_metadata.hpp"
#include "qsa/timing/baseline_step_update.hpp"
#include "step_tuning.hpp"
#include "support/cuda_timer.hpp"
#endif

namespace qsa::bench {
namespace {

using namespace qsa::timing;

constexpr int kGpuIterations = 30;
constexpr int kGpuRepetitions = 9;

void configure(benchmark::internal::Benchmark* b, bool gpu) {
  b->Unit(benchmark::kMicrosecond);
  if (gpu) b->UseManualTime();
  if (quick_mode) return;
  if (gpu) {
    b->Iterations(kGpuIterations)->Repetitions(kGpuRepetitions)->DisplayAggregatesOnly(true);
    return;
  }
  b->MinTime(0.2)->Repetitions(5)->ReportAggregatesOnly(true);
}

std::string suffix(const StepShape& s) { return shape_suffix(s); }

struct ShapeCase {
  StepShape shape;
  StepCase step;
  int64_t bytes = 0;
};
std::vector<std::unique_ptr<ShapeCase>> shape_cases;

// A same-size copy moves the shape's bytes, half read and half written, in whole 16-byte vectors.
size_t same_size_copy_bytes(const ShapeCase& c) { return static_cast<size_t>(c.bytes / 2) / 16 * 16; }

// BM_CopySameSize/<kernel|device_to_device>/<shape>/bytes:<read plus written>. The bytes argument
// keeps it out of the bench records' shape families (docs/bench-records.md): a reference like
// BM_Copy, not a kernel under test.
std::string same_size_copy_name(const ShapeCase& c, bool by_kernel) {
  return std::string(by_kernel ? "BM_CopySameSize/kernel/" : "BM_CopySameSize/device_to_device/") + suffix(c.shape) +
         "/bytes:" + std::to_string(2 * same_size_copy_bytes(c));
}

void run_reference(benchmark::State& state, const ShapeCase* c) {
  StepCaches caches = c->step.caches;
  StepOutput out;
  Error error;
  for (auto _ : state) {
    const Status s = reference::step_update(c->step.input, &caches, &out, &error);
    benchmark::DoNotOptimize(s);
  }
  state.SetBytesProcessed(state.iterations() * c->bytes);
}

#ifdef QSA_HAVE_CUDA
using StepLaunch = std::function<Status(const cuda::StepUpdateDeviceArgs&, cudaStream_t, Error*)>;

// One GPU benchmark: `sets` device copies of its inputs and caches, the first verified against
// the reference, then a graph of launches that cycle through the sets.
struct GpuCase {
  std::string name;
  const ShapeCase* shape = nullptr;  // null: the floor or the copy
  StepLaunch launch;
  bool copy = false;
  bool copy_by_kernel = false;
  bool chain = false;  // each launch: the metadata kernel, then `launch`
  cuda::MetadataLaunchConfig metadata_config;
  std::unique_ptr<backends::CudaDeviceStep> step;
  void* copy_src = nullptr;
  void* copy_dst = nullptr;
  size_t copy_bytes = 0;  // bytes read by one launch of a copy (as many written)
  GraphReplayTimer timer;
  Preparation preparation;
  int runs = 0;  // repetitions run so far
  bool released = false;

  ~GpuCase() { release(); }

  // The device memory of a case whose repetitions have all run: a hundred cases of up to 256 sets
  // each (every set with its own caches) would not fit on the device together.
  void release() {
    step.reset();
    cudaFree(copy_src);
    cudaFree(copy_dst);
    copy_src = copy_dst = nullptr;
    released = true;
  }

  static constexpr size_t kCopyBytes = size_t{1} << 30;

  // A copy of a shape's size rotates through as many slices as the step rotates through sets.
  Status prepare_copy(Error* error) {
    copy_bytes = shape ? same_size_copy_bytes(*shape) : kCopyBytes;
    const int64_t slices = shape ? sets_streaming_past_l2(shape->bytes) : 1;
    const size_t total = copy_bytes * static_cast<size_t>(slices);
    QSA_CUDA_TRY(cudaMalloc(&copy_src, total), error);
    QSA_CUDA_TRY(cudaMalloc(&copy_dst, total), error);
    QSA_CUDA_TRY(cudaMemset(copy_src, 1, total), error);
    int64_t next = 0;
    return timer.capture(
        static_cast<int>(shape ? std::max<int64_t>(slices, 20) : 4),
        [&](cudaStream_t st) -> Status {
          const size_t offset = copy_bytes * static_cast<size_t>(next++ % slices);
          const void* src = static_cast<const char*>(copy_src) + offset;
          void* dst = static_cast<char*>(copy_dst) + offset;
          if (copy_by_kernel) return launch_copy_kernel(src, dst, copy_bytes, st, error);
          QSA_CUDA_TRY(cudaMemcpyAsync(dst, src, copy_bytes, cudaMemcpyDeviceToDevice, st), error);
          return Status::kOk;
        },
        error);
  }

  Status prepare(Error* error) {
    cudaStream_t stream = nullptr;
    if (Status s = timer.stream(&stream, error); s != Status::kOk) return s;
    if (copy) return prepare_copy(error);
    if (!shape)
      return timer.capture(
          200, [&](cudaStream_t st) { return launch_empty_kernel(st, 1, error); }, error);

    const StepInput& in = shape->step.input;
    const int64_t count = sets_streaming_past_l2(shape->bytes);
    if (Status s = backends::CudaDeviceStep::create(in, shape->step.caches, count, launch, &step, error);
        s != Status::kOk)
      return s;
    // Verify set 0 against the reference before timing.
    if (Status s = step->enqueue(stream, 0, error); s != Status::kOk) return s;
    engine::StepRun run;
    run.caches = shape->step.caches;
    if (Status s = step->download(stream, &run.caches, &run.output, error); s != Status::kOk) return s;
    engine::StepRun expected;
    expected.caches = shape->step.caches;
    expected.output = make_poisoned_step_output(in);
    if (Status s = reference::step_update(in, &expected.caches, &expected.output, error); s != Status::kOk) return s;
    engine::StepChecks checks;
    checks.expected = &expected;
    if (auto f = engine::judge_step_update(in, shape->step.caches, run, checks))
      return invalid(error, "output", f->index, "differs-from-reference", name + ": " + f->to_string());
    int64_t next = 0;
    const int launches = static_cast<int>(std::max<int64_t>(count, 20));
    return timer.capture(
        launches,
        [&](cudaStream_t st) {
          if (chain)
            if (Status s = cuda::launch_metadata(step->metadata_args(), st, error, metadata_config); s != Status::kOk)
              return s;
          return step->enqueue(st, next++ % count, error);
        },
        error);
  }
};

std::vector<std::unique_ptr<GpuCase>> gpu_cases;

void run_gpu(benchmark::State& state, GpuCase* c) {
  if (c->released) {
    state.SkipWithError("the case's device memory was released after its last repetition");
    return;
  }
  const bool timed = time_graph_replays(
      state, c->name, c->preparation, [c](Error* error) { return c->prepare(error); }, c->timer);
  if (++c->runs == (quick_mode ? 1 : kGpuRepetitions)) c->release();
  if (!timed) return;
  if (c->copy)
    state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(2 * c->copy_bytes));
  else if (c->shape)
    state.SetBytesProcessed(state.iterations() * c->shape->bytes);
}

GpuCase* add_gpu_case(const std::string& name, const ShapeCase* shape, StepLaunch launch) {
  gpu_cases.push_back(std::make_unique<GpuCase>());
  gpu_cases.back()->name = name;
  gpu_cases.back()->shape = shape;
  gpu_cases.back()->launch = std::move(launch);
  return gpu_cases.back().get();
}
#endif

void register_benchmarks(bool gpu) {
  for (const StepShape& shape : step_shapes()) {
    shape_cases.push_back(std::make_unique<ShapeCase>());
    ShapeCase* c = shape_cases.back().get();
    c->shape = shape;
    c->step = make_step_case(shape, 7);
    c->bytes = step_bytes(c->step.input);
    if (shape.tokens <= 4096)
      configure(benchmark::RegisterBenchmark(("BM_StepUpdate/reference/" + suffix(shape)).c_str(), run_reference, c),
                false);
#ifdef QSA_HAVE_CUDA
    if (!gpu) continue;
    const std::string base = "BM_StepUpdate/baseline/" + suffix(shape);
    configure(benchmark::RegisterBenchmark(base.c_str(), run_gpu, add_gpu_case(base, c, launch_baseline_step_update)),
              true);
    for (const bool pdl : {false, true}) {
      const StepLaunch ours = [pdl](const cuda::StepUpdateDeviceArgs& a, cudaStream_t s, Error* e) {
        cuda::StepUpdateDeviceArgs launch_args = a;
        launch_args.programmatic_launch = pdl;
        return cuda::launch_step_update(launch_args, s, e);
      };
      const std::string mode = pdl ? "cuda-pdl/" : "cuda/";
      const std::string name = "BM_StepUpdate/" + mode + suffix(shape);
      configure(benchmark::RegisterBenchmark(name.c_str(), run_gpu, add_gpu_case(name, c, ours)), true);
      const std::string chain_name = "BM_StepChain/" + mode + suffix(shape);
      GpuCase* chain = add_gpu_case(chain_name, c, ours);
      chain->chain = true;
      chain->metadata_config.programmatic_launch = pdl;
      configure(benchmark::RegisterBenchmark(chain_name.c_str(), run_gpu, chain), true);
    }
    const std::string v5 = "BM_StepUpdate/cuda-v5/" + suffix(shape);
    configure(benchmark::RegisterBenchmark(v5.c_str(), run_gpu, add_gpu_case(v5, c, launch_step_version5)), true);
    for (const bool by_kernel : {true, false}) {
      const std::string same_size = same_size_copy_name(*c, by_kernel);
      GpuCase* same_size_copy = add_gpu_case(same_size, c, {});
      same_size_copy->copy = true;
      same_size_copy->copy_by_kernel = by_kernel;
      configure(benchmark::RegisterBenchmark(same_size.c_str(), run_gpu, same_size_copy), true);
    }
#else
    (void)gpu;
#endif
  }
#ifdef QSA_HAVE_CUDA
  if (!gpu) return;
  // Tunings of the kernel on the real shapes (bf16): docs/cuda-step-update.md records the choice.
  if (!quick_mode) {
    for (const auto& c : shape_cases) {
      if (c->shape.dtype != StoreDtype::kBf16) continue;
      for (const StepTuning& tuning : step_tunings()) {
        for (int k = 1; k <= tuning_cases; ++k) {
          const std::string name =
              tuning_case_name("BM_StepUpdateTuning/cuda/" + suffix(c->shape) + "/" + tuning.name, k);
          configure(benchmark::RegisterBenchmark(name.c_str(), run_gpu, add_gpu_case(name, c.get(), tuning.launch)),
                    true);
        }
      }
    }
  }
  configure(benchmark::RegisterBenchmark("BM_Floor/empty_kernel", run_gpu,
                                         add_gpu_case("BM_Floor/empty_kernel", nullptr, {})),
            true);
  GpuCase* copy = add_gpu_case("BM_Copy/device_to_device", nullptr, {});
  copy->copy = true;
  configure(benchmark::RegisterBenchmark("BM_Copy/device_to_device", run_gpu, copy), true);
  GpuCase* kernel_copy = add_gpu_case("BM_Copy/kernel", nullptr, {});
  kernel_copy->copy = true;
  kernel_copy->copy_by_kernel = true;
  configure(benchmark::RegisterBenchmark("BM_Copy/kernel", run_gpu, kernel_copy), true);
#endif
}

// The table after the run: each shape's time, bandwidth against the copy ceiling and against a
// copy of the same bytes, and speedup over the unfused baseline; then the tuning variants.
void print_summary(const MedianReporter& reporter) {
  const double floor = reporter.micros("BM_Floor/empty_kernel");
  // The ceiling: the faster of cudaMemcpyAsync and a plain vector-copy kernel.
  const double ceiling =
      std::max(reporter.bytes_per_second("BM_Copy/device_to_device"), reporter.bytes_per_second("BM_Copy/kernel"));
  std::printf("\nSummary: time per step (median, microseconds), bandwidth counting the bytes that must move\n");
  std::printf("copy ceiling %.2f TB/s, empty-kernel floor %.2f us\n", ceiling / 1e12, floor);
  std::printf("%-8s %-9s %6s %5s %9s %9s %9s %9s %9s %9s %8s %8s %9s %9s %9s\n", "shape", "dtype", "N", "NR", "ours",
              "ours-pdl", "v5", "chain", "chain-pdl", "baseline", "TB/s", "of copy", "copy-same", "of same",
              "base/ours");
  for (const auto& c : shape_cases) {
    const std::string s = suffix(c->shape);
    const double ours = reporter.micros("BM_StepUpdate/cuda/" + s);
    const double base = reporter.micros("BM_StepUpdate/baseline/" + s);
    const double pdl = reporter.micros("BM_StepUpdate/cuda-pdl/" + s);
    const double v5 = reporter.micros("BM_StepUpdate/cuda-v5/" + s);
    const double chain = reporter.micros("BM_StepChain/cuda/" + s);
    const double chain_pdl = reporter.micros("BM_StepChain/cuda-pdl/" + s);
    const double copy_kernel = reporter.micros(same_size_copy_name(*c, true));
    const double copy_memcpy = reporter.micros(same_size_copy_name(*c, false));
    const double same_size_copy =
        copy_kernel > 0 && copy_memcpy > 0 ? std::min(copy_kernel, copy_memcpy) : std::max(copy_kernel, copy_memcpy);
    const double tbps = ours > 0 ? static_cast<double>(c->bytes) / (ours * 1e-6) / 1e12 : -1;
    auto cell = [](double v, const char* format) {
      if (v < 0) return std::string("-");
      char text[32];
      std::snprintf(text, sizeof(text), format, v);
      return std::string(text);
    };
    std::printf("%-8s %-9s %6lld %5lld %9s %9s %9s %9s %9s %9s %8s %8s %9s %9s %9s\n", c->shape.name.c_str(),
                to_string(c->shape.dtype), static_cast<long long>(c->shape.tokens),
                static_cast<long long>(c->shape.requests), cell(ours, "%.2f").c_str(), cell(pdl, "%.2f").c_str(),
                cell(v5, "%.2f").c_str(), cell(chain, "%.2f").c_str(), cell(chain_pdl, "%.2f").c_str(),
                cell(base, "%.2f").c_str(), cell(tbps, "%.2f").c_str(),
                cell(tbps > 0 && ceiling > 0 ? 100.0 * tbps * 1e12 / ceiling : -1, "%.0f%%").c_str(),
                cell(same_size_copy, "%.2f").c_str(),
                cell(ours > 0 && same_size_copy > 0 ? 100.0 * same_size_copy / ours : -1, "%.0f%%").c_str(),
                cell(ours > 0 && base > 0 ? base / ours : -1, "%.2f").c_str());
  }
  std::printf("\nTunings (median, microseconds per step)\n");
  for (const auto& [name, micros] : reporter.all_micros())
    if (name.rfind("BM_StepUpdateTuning/", 0) == 0) std::printf("%-110s %9.2f\n", name.c_str(), micros);
}

}  // namespace
}  // namespace qsa::bench

int main(int argc, char** argv) {
  return qsa::bench::run_benchmark_main(argc, argv, qsa::bench::register_benchmarks, qsa::bench::print_summary);
}
