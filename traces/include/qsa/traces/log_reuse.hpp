#pragma once
// Log-implied reuse: what an infinite prefix cache could reuse of a request log's window, read from
// the log alone (it shares no code with the simulator, whose hits it is the yardstick for).
// docs/workloads.md "Request logs" defines it: per request, the positions of its leading whole hash
// blocks equal to those of any earlier request of the window, rounded down to a multiple of B and
// capped at prompt - 1 (the last prompt token is always computed), lengths scaled as the replay
// scales them.

#include <cstdint>
#include <vector>

#include "qsa/traces/request_log.hpp"
#include "qsa/traces/request_replay.hpp"

namespace qsa::traces {

struct LogReuse {
  int64_t prompt_positions = 0;    // the window's scaled prompt positions
  int64_t reusable_positions = 0;  // of them, log-implied reusable ones
  std::vector<int64_t> per_request;  // [window size] each request's reusable positions, in file order
};

LogReuse log_implied_reuse(const RequestLog& log, const ReplayOptions& options, int64_t block_size);

}  // namespace qsa::traces
