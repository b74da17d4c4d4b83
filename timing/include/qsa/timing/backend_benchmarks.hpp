#pragma once
// The measurements of `qsacheck bench`: one backend's step update over a set of shapes, each
// shape first checked once through the checking engine (a backend that disagrees is reported and
// not timed), then timed with the benchmarks' method: a CUDA graph of back-to-back launches that
// cycle through enough input sets to stream four times the L2 cache, replayed between CUDA events,
// `iterations` replays per repetition, `repetitions` repetitions kept apart. The empty-kernel
// floor, the copy ceiling and the unfused baseline are measured in the same run. Host header of a
// CUDA build.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "qsa/backend_interface.hpp"
#include "qsa/timing/step_shapes.hpp"
#include "qsa/engine/float_comparator.hpp"

namespace qsa::timing {

/// One benchmark's figures.
struct Measurement {
  std::string name;                  // BM_<Operation>/<label>/<arg>:<value>/... (no run options)
  std::vector<double> seconds;       // per launch, one value per repetition (its replays' mean)
  std::vector<double> host_seconds;  // host CPU time per launch of each repetition
  int64_t iterations = 0;            // graph replays per repetition
  int64_t launches = 0;              // launches per graph
  int64_t bytes_per_launch = 0;      // what one launch must move (0: not counted)
  std::string not_timed;             // why it was not timed (a disagreement, a capture failure)
  bool disagreement = false;         // not timed because the check found a disagreement
};

struct BenchOptions {
  std::string label;              // the backend's name in benchmark names
  std::vector<StepShape> shapes;  // step_shapes() by default
  int repetitions = 9;
  int iterations = 30;
  bool references = true;                                 // the floor, the copy ceiling, the unfused baseline
  const engine::FloatComparator* floats = nullptr;        // the check's float comparison (nullptr: exact)
  std::function<void(const std::string& line)> progress;  // one line per benchmark, as it ends
};

/// Runs every benchmark in a fixed order: per shape the backend's step update (then the unfused
/// baseline), then the floor and the copies. Needs a CUDA device (the caller probes for one).
std::vector<Measurement> run_backend_benchmarks(Backend& backend, const BenchOptions& options);

/// Names of the reference measurements.
inline constexpr const char* kFloorName = "BM_Floor/empty_kernel";
inline constexpr const char* kCopyName = "BM_Copy/device_to_device";
inline constexpr const char* kCopyKernelName = "BM_Copy/kernel";

}  // namespace qsa::timing
