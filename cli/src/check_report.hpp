#pragma once
// What `qsacheck check` ran and found: rows of checks per backend, per-workload scenario results,
// coverage, what did not run; printed as a table and optionally written as JSON.

#include <cstdio>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "qsa/status.hpp"
#include "qsa/traces/float_comparator.hpp"
#include "qsa/traces/float_statistics.hpp"
#include "qsa/traces/scenario.hpp"

namespace qsa::cli {

struct CheckRow {
  std::string check;
  std::string backend;
  int64_t cases = 0;
  int64_t failures = 0;
  double seconds = 0;
  std::string first_failure;
};

struct CheckReport {
  uint64_t seed = 0;
  std::vector<std::string> backends;
  std::vector<CheckRow> rows;
  traces::Coverage coverage;
  std::vector<std::string> not_run;        // checks of the chosen backends that could not run (exit 3)
  std::vector<std::string> unavailable;    // backends not chosen because they cannot run here (informational)
  std::string reproducer;                  // file written on a failure, empty otherwise
  std::string replay_command;              // the command that re-runs it
  int64_t first_failure_step = -1;         // step of the first scenario failure, -1 if none
  std::optional<Error> setup_error;        // the campaign could not start (e.g. unknown backend)
  std::string stopped_by;                  // "SIGINT", "SIGTERM", "the time budget of 30 s"; empty if it ran to the end
  std::vector<std::string> unwritten;      // files the campaign meant to write but could not
  traces::FloatTolerance float_tolerance;  // how compressed rows and q_out were compared
  /// Tolerance mode: per backend, the row-ulp figures of its scenarios (a deque keeps the
  /// addresses the runs accumulate into).
  std::deque<std::pair<std::string, traces::StepFloatStatistics>> float_statistics;

  bool failed() const;
  /// 0 every check ran and passed, 1 a check failed, 3 passed but something did not run.
  int exit_code() const;
  CheckRow& add(const std::string& check, const std::string& backend);
};

/// The table, coverage, what did not run and the verdict line, on `out` (stdout, or stderr when
/// stdout carries the JSON). The verdict line names the backends checked.
void print_report(const CheckReport& report, std::FILE* out);
/// "passed (reference only: ...; no kernel checked)", "FAILED", ...: the words after "RESULT: ".
std::string verdict_text(const CheckReport& report);
nlohmann::json report_to_json(const CheckReport& report);

}  // namespace qsa::cli
