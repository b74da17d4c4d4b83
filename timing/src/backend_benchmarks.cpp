#include "qsa/timing/backend_benchmarks.hpp"

#include <algorithm>
#include <ctime>
#include <memory>

#include "qsa/backends/cuda_device_step.hpp"
#include "qsa/backends/device_step.hpp"
#include "qsa/cuda/cuda_check.hpp"
#include "qsa/reference/reference_backend.hpp"
#include "qsa/timing/baseline_metadata.hpp"
#include "qsa/timing/baseline_step_update.hpp"
#include "qsa/timing/graph_replay_timer.hpp"
#include "qsa/engine/check_engine.hpp"

namespace qsa::timing {
namespace {

constexpr size_t kCopyBytes = size_t{1} << 30;

using Enqueue = std::function<Status(cudaStream_t, int64_t launch, Error*)>;

// Captures `launches` launches in a graph and times `repetitions` x `iterations` replays of it.
Measurement time_launches(const std::string& name, int64_t launches, int64_t bytes, const Enqueue& enqueue,
                          const BenchOptions& options) {
  Measurement m;
  m.name = name;
  m.launches = launches;
  m.iterations = options.iterations;
  m.bytes_per_launch = bytes;
  GraphReplayTimer timer;
  Error error;
  int64_t next = 0;
  if (timer.capture(
          static_cast<int>(launches), [&](cudaStream_t s) { return enqueue(s, next++, &error); }, &error) !=
      Status::kOk) {
    m.not_timed = "could not capture the launches in a CUDA graph: " + to_string(error);
    return m;
  }
  for (int r = 0; r < options.repetitions; ++r) {
    double total = 0;
    const std::clock_t host_start = std::clock();
    for (int i = 0; i < options.iterations; ++i) {
      double seconds = 0;
      if (timer.replay(&seconds, &error) != Status::kOk) {
        m.not_timed = "a graph replay failed: " + to_string(error);
        m.seconds.clear();
        m.host_seconds.clear();
        return m;
      }
      total += seconds;
    }
    const double host = static_cast<double>(std::clock() - host_start) / CLOCKS_PER_SEC;
    m.seconds.push_back(total / options.iterations);
    m.host_seconds.push_back(host / (static_cast<double>(options.iterations) * static_cast<double>(launches)));
  }
  return m;
}

Measurement not_timed(const std::string& name, const std::string& why, bool disagreement = false) {
  Measurement m;
  m.name = name;
  m.not_timed = why;
  m.disagreement = disagreement;
  return m;
}

// The check before timing, through the checking engine: nullopt when the backend agrees with the
// reference on this step, else why it is not timed.
std::optional<std::string> check_step(Backend& backend, const StepCase& c, const BenchOptions& options,
                                      bool* disagreement) {
  reference::ReferenceBackend reference;
  const engine::StepRun expected = engine::run_step_update(reference, c.input, c.caches);
  const engine::StepRun actual = engine::run_step_update(backend, c.input, c.caches);
  *disagreement = false;
  if (actual.status == Status::kNotImplemented) return "the backend declined this step: " + to_string(actual.error);
  const engine::MetadataRun compressed = engine::reference_metadata(c.input.compressed_metadata_input());
  const engine::MetadataRun ring = engine::reference_metadata(c.input.ring_metadata_input());
  engine::StepChecks checks;
  checks.expected = &expected;
  checks.floats = options.floats;
  checks.compressed_metadata = &compressed.output;
  checks.ring_metadata = &ring.output;
  if (auto finding = engine::judge_step_update(c.input, c.caches, actual, checks)) {
    *disagreement = true;
    return "disagrees with the reference: " + finding->to_string();
  }
  return std::nullopt;
}

Measurement time_device_step(const std::string& name, backends::DeviceStep& step, int64_t bytes,
                             const BenchOptions& options) {
  const int64_t launches = std::max<int64_t>(step.sets(), 20);
  return time_launches(
      name, launches, bytes,
      [&](cudaStream_t s, int64_t launch, Error* e) { return step.enqueue(s, launch % step.sets(), e); }, options);
}

std::vector<Measurement> reference_measurements(const BenchOptions& options) {
  std::vector<Measurement> out;
  out.push_back(time_launches(
      kFloorName, 200, 0, [](cudaStream_t s, int64_t, Error* e) { return launch_empty_kernel(s, 1, e); }, options));
  void* src = nullptr;
  void* dst = nullptr;
  if (cudaMalloc(&src, kCopyBytes) != cudaSuccess || cudaMalloc(&dst, kCopyBytes) != cudaSuccess ||
      cudaMemset(src, 1, kCopyBytes) != cudaSuccess) {
    cudaGetLastError();
    out.push_back(not_timed(kCopyName, "could not allocate two 1 GiB buffers for the copy ceiling"));
  } else {
    const auto copy_bytes = static_cast<int64_t>(2 * kCopyBytes);  // read plus written
    out.push_back(time_launches(
        kCopyName, 4, copy_bytes,
        [&](cudaStream_t s, int64_t, Error* e) -> Status {
          QSA_CUDA_TRY(cudaMemcpyAsync(dst, src, kCopyBytes, cudaMemcpyDeviceToDevice, s), e);
          return Status::kOk;
        },
        options));
    out.push_back(time_launches(
        kCopyKernelName, 4, copy_bytes,
        [&](cudaStream_t s, int64_t, Error* e) { return launch_copy_kernel(src, dst, kCopyBytes, s, e); }, options));
  }
  cudaFree(src);
  cudaFree(dst);
  return out;
}

}  // namespace

std::vector<Measurement> run_backend_benchmarks(Backend& backend, const BenchOptions& options) {
  std::vector<Measurement> out;
  auto report = [&](Measurement m) {
    if (options.progress) options.progress(m.name + (m.not_timed.empty() ? "" : ": NOT TIMED: " + m.not_timed));
    out.push_back(std::move(m));
  };
  for (const StepShape& shape : options.shapes) {
    const StepCase c = make_step_case(shape, 7);
    const int64_t bytes = step_bytes(c.input);
    const std::string name = "BM_StepUpdate/" + options.label + "/" + shape_suffix(shape);
    bool disagreement = false;
    if (auto why = check_step(backend, c, options, &disagreement)) {
      report(not_timed(name, *why, disagreement));
    } else {
      std::unique_ptr<backends::DeviceStep> step;
      Error error;
      if (backends::prepare_device_step(backend, c.input, c.caches, sets_streaming_past_l2(bytes), &step, &error) !=
          Status::kOk)
        report(not_timed(name, to_string(error)));
      else
        report(time_device_step(name, *step, bytes, options));
    }
    if (!options.references) continue;
    // The unfused baseline is bit-exact (SPEC 6) and checked by the benchmark binary's verify step.
    std::unique_ptr<backends::CudaDeviceStep> baseline;
    Error error;
    const std::string baseline_name = "BM_StepUpdate/baseline/" + shape_suffix(shape);
    if (backends::CudaDeviceStep::create(c.input, c.caches, sets_streaming_past_l2(bytes), launch_baseline_step_update,
                                         &baseline, &error) != Status::kOk)
      report(not_timed(baseline_name, to_string(error)));
    else
      report(time_device_step(baseline_name, *baseline, bytes, options));
  }
  if (options.references)
    for (Measurement& m : reference_measurements(options)) report(std::move(m));
  return out;
}

}  // namespace qsa::timing
