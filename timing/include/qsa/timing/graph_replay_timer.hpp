#pragma once
// Timing GPU work (RMM's pattern): capture many back-to-back launches of one operation in a CUDA
// graph, replay it between two CUDA events, and divide by the launches. Host header; shared by
// `qsacheck bench` and the benchmark binaries.

#include <cuda_runtime_api.h>

#include <functional>

#include "qsa/status.hpp"

namespace qsa::timing {

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

}  // namespace qsa::timing
