#pragma once
// The words of a long run's progress line (docs/campaign-time.md): the one ETA rule and the
// overall part every campaign line starts with. The CLI draws them (cli/src/progress_line.hpp).

#include <cstdint>
#include <string>

namespace qsa::engine {

/// "ETA 57 s": the time the rest of `total` takes if it goes at the rate `done` went in
/// `elapsed_seconds` ("ETA ?" before anything is done). The one ETA rule of every progress line.
std::string eta_text(int64_t done, int64_t total, double elapsed_seconds);

/// The overall part of a long run's progress lines: "[jobs 3/20, 12 s elapsed, ETA 57 s]";
/// the ETA assumes the jobs left take as long as the jobs done ("ETA ?" before the first ends).
/// With `steps` (the scenario steps checked so far, every job together) and a second elapsed, the
/// checking rate follows: "[jobs 3/20, 12 s elapsed, ETA 57 s, 2400 steps/s]" (docs/campaign-time.md).
std::string overall_progress(int64_t done, int64_t total, double elapsed_seconds, int64_t steps = -1);

}  // namespace qsa::engine
