#include "qsa/engine/shrinker.hpp"

#include <algorithm>

namespace qsa::engine {

std::vector<int64_t> requests_of(const traces::Scenario& scenario) {
  std::set<int64_t> ids;
  for (const traces::StepRecord& step : scenario.steps)
    for (const traces::ChunkRecord& chunk : step.chunks) ids.insert(chunk.request);
  return {ids.begin(), ids.end()};
}

traces::Scenario remove_requests(const traces::Scenario& scenario, const std::set<int64_t>& requests) {
  traces::Scenario out;
  out.config = scenario.config;
  auto removed = [&](int64_t id) { return requests.count(id) != 0; };
  for (const traces::StepRecord& step : scenario.steps) {
    traces::StepRecord kept = step;
    kept.chunks.erase(std::remove_if(kept.chunks.begin(), kept.chunks.end(),
                                     [&](const traces::ChunkRecord& c) { return removed(c.request); }),
                      kept.chunks.end());
    kept.finished.erase(std::remove_if(kept.finished.begin(), kept.finished.end(), removed), kept.finished.end());
    kept.preempted.erase(std::remove_if(kept.preempted.begin(), kept.preempted.end(), removed), kept.preempted.end());
    // A step left with no chunk and no event changes no state: drop it with its padding.
    if (kept.chunks.empty() && kept.finished.empty() && kept.preempted.empty()) continue;
    out.steps.push_back(std::move(kept));
  }
  return out;
}

namespace {

class Shrinker {
 public:
  Shrinker(const FailingStep& failing_step, int64_t max_tries,
           const std::function<void(const traces::Scenario&, const ShrinkStats&)>& progress)
      : failing_step_(failing_step), max_tries_(max_tries), progress_(progress) {}

  // Keeps `candidate` (cut after its failing step) when it still fails.
  bool try_candidate(const traces::Scenario& candidate, traces::Scenario* current) {
    if (stats.tries >= max_tries_ || candidate.steps.empty()) return false;
    ++stats.tries;
    const std::optional<int64_t> step = failing_step_(candidate);
    if (step) {
      ++stats.accepted;
      *current = candidate;
      current->steps.resize(static_cast<size_t>(*step) + 1);
    }
    if (progress_) progress_(*current, stats);
    return step.has_value();
  }

  // ddmin over request ids: remove ever smaller subsets while the scenario keeps failing.
  void remove_requests_ddmin(traces::Scenario* current) {
    std::vector<int64_t> ids = requests_of(*current);
    size_t parts = 2;
    while (ids.size() >= 2 && stats.tries < max_tries_) {
      const size_t size = (ids.size() + parts - 1) / parts;
      bool removed_any = false;
      for (size_t begin = 0; begin < ids.size(); begin += size) {
        const std::set<int64_t> subset(ids.begin() + static_cast<std::ptrdiff_t>(begin),
                                       ids.begin() + static_cast<std::ptrdiff_t>(std::min(ids.size(), begin + size)));
        if (try_candidate(remove_requests(*current, subset), current)) {
          ids = requests_of(*current);
          parts = std::max<size_t>(parts - 1, 2);
          removed_any = true;
          break;
        }
      }
      if (removed_any) continue;
      if (parts >= ids.size()) break;
      parts = std::min(ids.size(), parts * 2);
    }
  }

  void remove_padding(traces::Scenario* current) {
    traces::Scenario candidate = *current;
    for (traces::StepRecord& step : candidate.steps) step.padded_requests = step.padding_tokens = 0;
    if (try_candidate(candidate, current)) return;
    for (size_t i = 0; i < current->steps.size() && stats.tries < max_tries_; ++i) {
      if (current->steps[i].padded_requests == 0 && current->steps[i].padding_tokens == 0) continue;
      candidate = *current;
      candidate.steps[i].padded_requests = candidate.steps[i].padding_tokens = 0;
      try_candidate(candidate, current);
    }
  }

  ShrinkStats stats;

 private:
  const FailingStep& failing_step_;
  int64_t max_tries_;
  const std::function<void(const traces::Scenario&, const ShrinkStats&)>& progress_;
};

}  // namespace

traces::Scenario shrink_scenario(const traces::Scenario& failing, const FailingStep& failing_step, int64_t max_tries,
                         const std::function<void(const traces::Scenario&, const ShrinkStats&)>& progress, ShrinkStats* stats) {
  Shrinker shrinker(failing_step, max_tries, progress);
  traces::Scenario current = failing;
  if (!shrinker.try_candidate(failing, &current)) {  // not failing: nothing to shrink
    if (stats != nullptr) *stats = shrinker.stats;
    return failing;
  }
  shrinker.remove_requests_ddmin(&current);
  shrinker.remove_padding(&current);
  if (stats != nullptr) *stats = shrinker.stats;
  return current;
}

}  // namespace qsa::engine
