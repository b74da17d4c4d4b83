#pragma once
// A request log (request_log.hpp) replayed as requests: each logged request arrives in the
// simulated scheduler (simulator.hpp) at the step its timestamp maps to, with its own lengths,
// and requests whose leading whole hash blocks are equal share those blocks by a prefix hit.
// docs/workloads.md "Request logs" states every rule; in short, for a window of the log:
//   - a request arrives once the simulated time reaches (t - t0) / time_compression, t0 the window's
//     first arrival; a step lasts replay_step_us(its rows), and an idle scheduler waits for the next
//     arrival (idle time is not recorded, as for every workload);
//   - lengths divided by length_scale (floor, at least 1); a hash block of H tokens covers
//     H / length_scale positions, so length_scale must divide H when the log has hashes;
//   - a request's family is its first whole hash block, where another request of the window
//     starts with the same one; a full block of B positions is known to the prefix cache by the
//     chain of hash blocks up to its end, and a prefix hit takes the longest run of leading cached
//     blocks (below the own prompt's last token), written by a running, finished or preempted
//     request (docs/decisions.md "Prefix cache").

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "qsa/traces/request_log.hpp"
#include "qsa/traces/workloads.hpp"

namespace qsa::traces {

inline constexpr int64_t kReplayStepMs = 25;  // one decode step of the real model (the Azure fit's assumption)
/// A replayed step lasts kReplayStepMs plus this per scheduled row (docs/workloads.md "Request
/// logs"): 8192 rows take 74 ms, about 110 000 tokens/s at the full budget.
inline constexpr int64_t kReplayRowUs = 6;
inline int64_t replay_step_us(int64_t rows) { return kReplayStepMs * 1000 + kReplayRowUs * rows; }

/// Requests [from, to) of a log in file order, 0-based; to = -1: to the end.
struct RequestWindow {
  int64_t from = 0;
  int64_t to = -1;
};

/// "FROM:TO" with either side empty ("100:", ":50"); throws InputError {field "--window", rule
/// "not-a-window" or "out-of-range"}.
RequestWindow parse_request_window(const std::string& text);

struct ReplayOptions {
  RequestWindow window;
  int64_t time_compression = 1;   // log milliseconds per step = kReplayStepMs * time_compression
  int64_t length_scale = 1;       // prompt and output lengths divided by it
  int64_t token_budget = 8192;    // max_num_batched_tokens: SPEC 9's serving default
  int64_t max_num_seqs = 1024;    // SPEC 9's serving default
  int64_t preempt_per_mille = 5;  // chance per step of one more preemption (not in any log)
  int64_t prefilled_context = 0;  // Workload::prefilled_context: positions each request starts with in the caches
  int64_t cache_blocks = 0;       // Workload::fixed_compressed_blocks: the pool's blocks, 0: max_num_seqs longest requests
};

/// One logged request as the simulator takes it.
struct LoggedArrival {
  int64_t index = 0;       // in the log, 0-based
  int64_t step = 0;        // (t - t0) / (kReplayStepMs * time_compression): the log's time in idle steps
  int64_t arrival_us = 0;  // (t - t0) / time_compression in microseconds: when it joins the queue
  int64_t prompt_len = 0;  // scaled
  int64_t output_len = 0;  // scaled
  int64_t family = -1;     // first whole hash block shared with another request of the window; -1: none
  std::vector<int64_t> whole_hashes;  // the hashes of its whole hash blocks
  /// whole_hashes, then those of the first later request of the window whose prompt starts with all
  /// of them, as far as this request commits (prompt + output - 1 positions): that turn's prompt
  /// holds this one's output, so its content is the family's up to family_len.
  std::vector<int64_t> content_hashes;
  int64_t family_len = 0;  // ChunkRecord::family_len: content_hashes' positions when past the prompt, else 0
};

struct RequestSchedule {
  std::string path;
  std::vector<LoggedArrival> arrivals;  // in arrival order
  int64_t hash_block_positions = 0;     // positions one hash block covers after scaling
  RequestLogFigures figures;            // of the window, as logged
  ReplayOptions options;
  /// Steps within which every request completes: twice the positions to commit (sum of scaled
  /// prompt + output - 1). Without preemption every recorded step commits at least one position,
  /// so the sum alone bounds the steps; the factor 2 leaves room for recomputes.
  int64_t step_limit = 0;
  /// Positions the window's requests commit in all: the sum of scaled prompt + output - 1 (what a
  /// progress line counts down).
  int64_t positions = 0;
};

/// The workload that replays `options.window` of `log`: `default`'s scheduler with C 4, 3 drafts
/// and B 16 or 64 drawn per seed, the options' budget, cap and preemption, no dropped arrivals,
/// done when every request of the window has finished. Throws InputError {field "--window" (an
/// empty window or one past the log), "--length-scale" (rule "not-a-divisor")}.
Workload workload_from_request_log(const RequestLog& log, const ReplayOptions& options);

/// Positions of the leading whole hash blocks two arrivals share.
int64_t shared_prefix_positions(const RequestSchedule& schedule, const LoggedArrival& a, const LoggedArrival& b);

}  // namespace qsa::traces
