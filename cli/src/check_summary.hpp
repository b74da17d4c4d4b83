#pragma once
// The text of a campaign's report (`qsacheck check`, `merge`, `mutants`): the summary, the verdict,
// the shared prefixes and a replayed log's figures. The report itself is the engine's
// (qsa/engine/check_report.hpp); printing is the CLI's.

#include <cstdio>
#include <string>

#include "campaign_names.hpp"

namespace qsa::cli {


/// The summary on `out` (stdout, or stderr when stdout carries the JSON): the settings line, then
/// a finding first (what failed, the reproducer and the replay command), the table (columns as wide
/// as its longest check and backend name), coverage, the CUDA kernel paths and grids only when the
/// CUDA backend was checked, the input space (its unreached classes and missed edges only with
/// `list_input_space`), what did not run and the verdict line naming the backends checked.
void print_report(const CheckReport& report, std::FILE* out, bool list_input_space = false);

/// True when a checked backend runs this build's CUDA kernels ("cuda", a CUDA planted bug, either
/// isolated), whose kernel paths and grids the report counts.
bool checks_cuda_kernels(const CheckReport& report);



/// The sharing line of the text report, after the coverage.
void print_sharing(const CheckReport& report, std::FILE* out);

/// The log's line and what the campaign exercised, after the coverage; nothing without a log.
void print_check_log_figures(const CheckReport& report, std::FILE* out);

}  // namespace qsa::cli
