#pragma once
// What a replayed request log's scenario did with the log's requests (docs/workloads.md "Request
// logs"): the log's figures beside what the steps exercised, for `simulate --requests`, `check
// --requests` and the campaign's progress line.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "qsa/traces/log_reuse.hpp"
#include "qsa/traces/prefix_hits.hpp"
#include "qsa/traces/request_replay.hpp"
#include "qsa/traces/scenario.hpp"
#include "qsa/traces/workloads.hpp"

namespace qsa::traces {

/// What the replayed scenario did with the log's requests: the log's figures beside them.
struct ReplaySummary {
  int64_t window_requests = 0;
  int64_t finished = 0;  // requests of the window that finished within the steps run
  int64_t steps = 0;
  int64_t step_limit = 0;
  int64_t block_size = 0;  // the scenario's B
  int64_t cache_blocks = 0;  // the scenario's compressed blocks (the prefix cache's pool)
  int64_t largest_position = -1;  // the largest position a chunk wrote
  /// Rows written by position: [0] positions 0-63, then [i] positions 2^(i+5) ... 2^(i+6)-1.
  std::vector<int64_t> rows_by_position;
  Coverage coverage;
  PrefixHitCounts hits;  // what the hits shared (PrefixHitTracker)
  LogReuse reuse;        // what the log implies an infinite cache could share (log_reuse.hpp)
  std::vector<int64_t> first_start;  // [window size] where each request's first chunk started (-1: never ran)
  int64_t evictions = 0;             // prefix-cache blocks the pool handed out again (Simulator::evictions())
  /// Of reuse.reusable_positions, those the replay reused: sum over requests of min(hit, implied).
  int64_t reused_of_implied() const;
};

/// Records where each request of a replayed window first started ([window size], -1 until it runs;
/// request id k is arrival k): a prefix hit's start, 0 for a start with pre-filled context.
void note_first_starts(const StepRecord& step, std::vector<int64_t>* first_start);
/// Of a log's implied reusable positions (LogReuse::per_request), those a replay reused: the sum
/// over requests of min(implied, first start).
int64_t reused_of_implied(const std::vector<int64_t>& implied, const std::vector<int64_t>& first_start);

/// The ReplaySummary of a replay, fed one step at a time as the simulator makes it, so that
/// `simulate` holds no step it has written (memory bounded by the live requests and the window).
class ReplaySummarizer {
 public:
  ReplaySummarizer(const Workload& workload, const ScenarioConfig& config);
  void add(const StepRecord& step);
  /// The figures of the steps added; `evictions` is the simulator's.
  ReplaySummary finish(int64_t evictions);

 private:
  ReplaySummary r_;
  CoverageCounter coverage_;
  PrefixHitTracker hits_;
  std::vector<bool> finished_;  // [window size]
};

/// Positions of a log's window served so far, for a progress line's ETA (the step limit is no
/// denominator: a replay ends long before it): every live request's committed length plus every
/// finished request's, a prefix hit's shared positions included; a preempted request's go back
/// (they are recomputed). Out of RequestSchedule::positions. Holds the live requests only.
class ServedPositions {
 public:
  void add(const StepRecord& step);
  int64_t served() const { return served_; }

 private:
  std::unordered_map<int64_t, int64_t> committed_;  // live request -> its committed length
  int64_t served_ = 0;
};

/// The figures of the replayed window of the log, as `request_log.log` of simulate's and check's
/// JSON (docs/json-schema.md): file, window, requests, span, rate, length percentiles, prefix share.
nlohmann::json request_log_figures_json(const RequestSchedule& schedule);
/// A line for the human report: those figures (request_log_figures_json()'s object).
std::string request_log_figures_text(const nlohmann::json& log);
/// Lines for the human report: the log's figures, then what the scenario exercised.
std::string replay_summary_text(const Workload& workload, const ReplaySummary& summary);
nlohmann::json replay_summary_json(const Workload& workload, const ReplaySummary& summary);

}  // namespace qsa::traces
