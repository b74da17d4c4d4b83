// The checker's own throughput: checked scenario steps per second through each kind of
// backend, every check on (the differential, the write check after every step for a kernel from
// outside, the oracle, the invariants). One iteration runs one scenario of the workload, already
// simulated. BM_CheckStep/<backend>/workload:<name>; the counter steps_per_second is the figure
// docs/campaign-time.md records. A backend that cannot run here (no plugin built, no NumPy, no GPU)
// is skipped with the reason, never timed as zero.
//
//   ./build-cpu/bin/check_step_bench --benchmark_filter=azure
//   QSA_BENCH_PLUGIN=path/libqsa_example_host.so QSA_BENCH_PYTHON=/usr/bin/python3 ./check_step_bench

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "qsa/backends/registry.hpp"
#include "qsa/engine/scenario_runner.hpp"
#include "qsa/traces/simulator.hpp"
#include "qsa/traces/workloads.hpp"

namespace {

std::string env_or(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

// The backend names: "reference", the host example plugin, the NumPy example worker, cuda.
std::string backend_name(const std::string& kind) {
  if (kind == "plugin_host") {
    const std::string path = env_or("QSA_BENCH_PLUGIN", QSA_BENCH_DEFAULT_PLUGIN);
    return path.empty() ? "" : "plugin:" + path;
  }
  if (kind == "worker_numpy") {
    const std::string python = env_or("QSA_BENCH_PYTHON", QSA_BENCH_DEFAULT_PYTHON);
    return python.empty() ? "" : "worker:" + python + " " + QSA_BENCH_NUMPY_WORKER;
  }
  return kind;  // reference, cuda
}

void BM_CheckStep(benchmark::State& state, const std::string& kind, const std::string& workload, int64_t steps) {
  const std::string name = backend_name(kind);
  if (name.empty()) {
    state.SkipWithError((kind + ": not built here (set QSA_BENCH_PLUGIN or QSA_BENCH_PYTHON)").c_str());
    return;
  }
  std::unique_ptr<qsa::Backend> backend;
  try {
    backend = qsa::BackendRegistry::global().create(name);
  } catch (const std::exception& e) {
    state.SkipWithError((name + ": " + e.what()).c_str());
    return;
  }
  std::string reason = "not built into this binary";
  if (!backend || backend->probe(&reason) != qsa::Status::kOk) {
    state.SkipWithError((name + " cannot run here: " + reason).c_str());
    return;
  }
  qsa::traces::Simulator simulator(qsa::traces::workload_by_name(workload), 1000003);
  qsa::traces::Scenario scenario{simulator.config(), {}};
  for (int64_t i = 0; i < steps && !simulator.done(); ++i) scenario.steps.push_back(simulator.next());
  // Verify before timing: the backend passes the scenario, or there is nothing to time.
  if (auto failure = qsa::engine::run_scenario(scenario, *backend)) {
    state.SkipWithError((name + " fails the scenario: " + qsa::engine::to_string(*failure)).c_str());
    return;
  }
  for (auto _ : state) {
    auto failure = qsa::engine::run_scenario(scenario, *backend);
    benchmark::DoNotOptimize(failure);
  }
  const auto checked = static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(scenario.steps.size());
  state.SetItemsProcessed(checked);
  state.counters["steps_per_second"] = benchmark::Counter(static_cast<double>(checked), benchmark::Counter::kIsRate);
}

void register_all() {
  for (const char* kind : {"reference", "plugin_host", "worker_numpy", "cuda"})
    for (const char* workload : {"default", "azure-conv"}) {
      const std::string label = std::string("BM_CheckStep/") + kind + "/workload:" + workload;
      benchmark::RegisterBenchmark(label.c_str(), [kind = std::string(kind), workload = std::string(workload)](
                                                      benchmark::State& s) { BM_CheckStep(s, kind, workload, 200); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
