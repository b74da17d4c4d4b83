#pragma once
// Timing GPU work for Google Benchmark (RMM's pattern): capture many back-to-back launches of
// one step in a CUDA graph, replay it between two CUDA events, and report the time per launch
// through State::SetIterationTime (UseManualTime). Host header.

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <functional>
#include <string>

#include "qsa/status.hpp"

namespace qsa::bench {

class GraphReplayTimer {
 public:
  GraphReplayTimer() = default;
  ~GraphReplayTimer();
  GraphReplayTimer(const GraphReplayTimer&) = delete;
  GraphReplayTimer& operator=(const GraphReplayTimer&) = delete;

  /// Captures `launches` calls of `enqueue(stream)` into one graph on a private stream and
  /// replays it once (warm-up: module load and graph upload stay out of the numbers).
  [[nodiscard]] Status capture(int launches, const std::function<Status(cudaStream_t)>& enqueue, Error* error);

  /// Replays the graph once between two events; *seconds_per_launch = elapsed / launches.
  [[nodiscard]] Status replay(double* seconds_per_launch, Error* error);

  /// The private stream (also used to upload inputs and check outputs before capture).
  [[nodiscard]] Status stream(cudaStream_t* stream, Error* error);

 private:
  cudaStream_t stream_ = nullptr;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
  int launches_ = 0;
};

/// What a GPU benchmark's one-time preparation (upload, check against the reference, capture)
/// left: whether it ran, and its error if it failed.
struct Preparation {
  bool done = false;
  std::string failure;
};

/// The body of a GPU benchmark: runs `prepare` on the first call only (a failure is printed,
/// fails the run through verification_failed and skips the benchmark), then times one replay of
/// `timer`'s graph per iteration. Returns false when the benchmark was skipped.
bool time_graph_replays(benchmark::State& state, const std::string& name, Preparation& preparation,
                        const std::function<Status(Error*)>& prepare, GraphReplayTimer& timer);

}  // namespace qsa::bench
