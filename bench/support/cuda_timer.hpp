#pragma once
// Google Benchmark's side of the graph-replay timer (qsa/timing/graph_replay_timer.hpp): the time
// per launch goes to State::SetIterationTime (UseManualTime). Host header.

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <functional>
#include <string>

#include "qsa/status.hpp"
#include "qsa/timing/graph_replay_timer.hpp"

namespace qsa::bench {

using timing::GraphReplayTimer;

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
