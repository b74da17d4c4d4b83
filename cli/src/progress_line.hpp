#pragma once
// The progress line of long commands, on stderr: redrawn in place on a terminal, a plain line
// every ten seconds in a log.

#include <chrono>
#include <cstdint>
#include <string>

namespace qsa::cli {

/// "ETA 57 s": the time the rest of `total` takes if it goes at the rate `done` went in
/// `elapsed_seconds` ("ETA ?" before anything is done). The one ETA rule of every progress line.
std::string eta_text(int64_t done, int64_t total, double elapsed_seconds);

/// The overall part of a long run's progress lines (issue 52): "[jobs 3/20, 12 s elapsed, ETA 57 s]";
/// the ETA assumes the jobs left take as long as the jobs done ("ETA ?" before the first ends).
/// With `steps` (the scenario steps checked so far, every job together) and a second elapsed, the
/// checking rate follows: "[jobs 3/20, 12 s elapsed, ETA 57 s, 2400 steps/s]" (docs/campaign-time.md).
std::string overall_progress(int64_t done, int64_t total, double elapsed_seconds, int64_t steps = -1);

class ProgressLine {
 public:
  /// With `first_after` > 0 nothing is drawn before that much time has passed, so that a short
  /// run leaves no progress line at all.
  explicit ProgressLine(bool quiet = false, std::chrono::milliseconds first_after = std::chrono::milliseconds(0));
  void update(const std::string& text);  // rate-limited
  void finish(const std::string& text);  // always printed, on its own line
  void clear();                          // erases a line drawn in place on a terminal
 private:
  bool quiet_;
  bool terminal_;
  std::chrono::steady_clock::time_point last_;
  bool dirty_ = false;
};

}  // namespace qsa::cli
