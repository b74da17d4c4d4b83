#include "support/cuda_timer.hpp"

#include <cstdio>

#include "qsa/cuda/cuda_check.hpp"
#include "support/bench_main.hpp"

namespace qsa::bench {

bool time_graph_replays(benchmark::State& state, const std::string& name, Preparation& preparation,
                        const std::function<Status(Error*)>& prepare, GraphReplayTimer& timer) {
  if (!preparation.done) {
    preparation.done = true;
    Error error;
    if (prepare(&error) != Status::kOk) {
      preparation.failure = to_string(error);
      verification_failed = true;
      std::fprintf(stderr, "FAILED to prepare %s: %s\n", name.c_str(), preparation.failure.c_str());
    }
  }
  if (!preparation.failure.empty()) {
    state.SkipWithError(preparation.failure.c_str());
    return false;
  }
  for (auto _ : state) {
    double seconds = 0;
    Error error;
    if (timer.replay(&seconds, &error) != Status::kOk) {
      state.SkipWithError(to_string(error).c_str());
      verification_failed = true;
      return false;
    }
    state.SetIterationTime(seconds);
  }
  return true;
}

}  // namespace qsa::bench
