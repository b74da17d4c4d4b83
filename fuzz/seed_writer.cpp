// fuzz_seed_writer DIR: writes starting inputs for the three fuzz targets under DIR/<target>/:
// - fuzz_trace_reader: the first steps of a simulated scenario of every workload model
//   (traces::simulate), some with the digests the reference records, so the reader starts from
//   real files;
// - fuzz_metadata, fuzz_scenario: byte strings from the project's seeded generator, which the
//   targets' decoders turn into edge-shaped batches and command-driven scenarios.
// `./dev fuzz --seed-corpus` merges them into fuzz/corpus/ (libFuzzer -merge=1 keeps the ones that
// add coverage and names them by SHA-1). Deterministic: the same files every run.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "qsa/backends/registry.hpp"
#include "qsa/traces/rng.hpp"
#include "qsa/traces/scenario_file.hpp"
#include "qsa/engine/step_loop.hpp"
#include "qsa/engine/scenario_runner.hpp"
#include "qsa/traces/simulator.hpp"
#include "qsa/traces/workloads.hpp"

namespace {

namespace fs = std::filesystem;
using namespace qsa;

void write_bytes(const fs::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

void random_seeds(const fs::path& dir, uint64_t stream, int count, int64_t min_len, int64_t max_len) {
  fs::create_directories(dir);
  traces::Rng rng = traces::Rng(20240611).fork(stream);
  for (int i = 0; i < count; ++i) {
    std::vector<uint8_t> bytes(static_cast<size_t>(rng.range(min_len, max_len)));
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng.next());
    write_bytes(dir / ("seed-" + std::to_string(i)), bytes);
  }
}

// The first `steps` steps of a simulated scenario, with the reference's digests when asked.
std::string scenario_text(const std::string& workload, uint64_t seed, int64_t steps, bool digests) {
  const traces::Scenario s = traces::simulate(traces::workload_by_name(workload), seed, steps);
  std::vector<traces::StepDigest> recorded;
  if (digests) {
    auto reference = BackendRegistry::global().create("reference");
    engine::RunOptions options;
    options.compute_digests = true;
    engine::ScenarioRunner runner(s.config, *reference, options);
    engine::StepObserver observer;
    observer.after_step = [&](int64_t, const traces::StepRecord&, const engine::ScenarioRunner& r, bool failed) {
      if (!failed) recorded.push_back(r.last_digest());
    };
    if (engine::run_steps(runner, s.steps, observer).failure) recorded.clear();
    if (recorded.size() != s.steps.size()) recorded.clear();
  }
  std::ostringstream out;
  traces::write_scenario(out, s, recorded);
  return out.str();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR (writes DIR/fuzz_metadata, DIR/fuzz_scenario, DIR/fuzz_trace_reader)\n",
                 argv[0]);
    return 2;
  }
  const fs::path dir = argv[1];
  random_seeds(dir / "fuzz_metadata", 1, 64, 8, 400);
  random_seeds(dir / "fuzz_scenario", 2, 64, 64, 1500);

  const fs::path reader = dir / "fuzz_trace_reader";
  fs::create_directories(reader);
  int n = 0;
  for (const std::string& workload : traces::workload_names()) {
    for (uint64_t seed : {1ull, 2ull}) {
      const std::string text = scenario_text(workload, seed, seed == 1 ? 2 : 4, seed == 2);
      if (text.size() > 16384) continue;  // keep seeds small (production-blocks tables are long)
      std::ofstream(reader / ("seed-" + std::to_string(n++))) << text;
    }
  }
  std::printf("wrote seeds for fuzz_metadata (64), fuzz_scenario (64) and fuzz_trace_reader (%d) under %s\n", n,
              dir.c_str());
  return 0;
}
