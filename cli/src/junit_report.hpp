#pragma once
// `--junit FILE` of `check` and `replay`: the result as JUnit XML, the format CI systems (GitLab,
// Jenkins, GitHub test reporters) show as tests. `check`: one testcase per check and backend (the
// scenario rows are per workload); `replay`: one per file. A failure holds the finding and the
// replay command; what did not run is a skipped testcase, every planned check is listed. Properties
// state the seed, the backends and the float comparison, so a tolerance-mode result is never read
// as an exact one. Valid against Jenkins xunit's junit-10.xsd, with the Ant schema's required parts
// (cli/tests/junit-10.xsd; docs/decisions.md, "JUnit schema").

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "campaign_names.hpp"
#include "output_file.hpp"

namespace qsa::cli {

struct JunitCase {
  enum class Outcome { kPassed, kFailed, kSkipped };
  std::string classname;  // "qsacheck.check.reference", "qsacheck.replay.plugin_libx_so" (junit_class)
  std::string name;
  double seconds = 0;
  Outcome outcome = Outcome::kPassed;
  std::string message;  // failure or skip: one line
  std::string details;  // failure: the finding and how to replay it
};

struct JunitSuite {
  std::string name;  // "qsacheck check"
  std::vector<std::pair<std::string, std::string>> properties;
  std::vector<JunitCase> cases;
  std::string package;    // "qsacheck.check": the classnames' package
  std::string hostname;   // this host's name
  std::string timestamp;  // the run's start, UTC, "2026-12-05T12:00:00" (the Ant schema's form: no zone)
};

/// The class part of a JUnit classname for a backend, with no dot (Jenkins reads the part after
/// the classname's last dot as the class): a plugin or worker by its file's name,
/// "plugin:build/libx.so" -> "plugin_libx_so", "worker:python3 w/k.py" -> "worker_k_py".
std::string junit_class(const std::string& backend);

/// The suite as a JUnit XML document (escaped; invalid UTF-8 and control characters replaced).
std::string junit_xml(const JunitSuite& suite);

/// The testcases of a `check` report.
JunitSuite check_junit(const CheckReport& report);

/// Writes `suite` to `path` atomically; a failed write is recorded in `output` (said at the end,
/// the verdict's exit code kept).
void write_junit(const std::string& path, const JunitSuite& suite, ReportOutput* output);

/// The testcases of a `replay` JSON report ({"backend", "files": [...]}, replay_command.cpp).
JunitSuite replay_junit(const nlohmann::json& report);

}  // namespace qsa::cli
