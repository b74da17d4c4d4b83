#include "junit_report.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>
#include <vector>

#include "qsa/engine/replay_command.hpp"
#include "qsa/records/report_html.hpp"

namespace qsa::cli {
namespace {

// The length of the valid UTF-8 sequence at s[i], or 0 (a stray or overlong byte, a surrogate).
size_t utf8_length(const std::string& s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  if ((c == 0xE0 && byte(i + 1) < 0xA0) || (c == 0xED && byte(i + 1) >= 0xA0) || (c == 0xF0 && byte(i + 1) < 0x90) ||
      (c == 0xF4 && byte(i + 1) >= 0x90))
    return 0;
  return n;
}

// Text for an XML attribute or element: the characters XML 1.0 cannot hold replaced (invalid
// UTF-8 by U+FFFD, control characters but tab and newline by '?'), then markup escaped as for HTML.
std::string xml_text(const std::string& s) {
  std::string valid;
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const size_t n = utf8_length(s, i);
      valid += n == 0 ? "\xEF\xBF\xBD" : s.substr(i, n);
      i += n == 0 ? 1 : n;
      continue;
    }
    valid += c < 0x20 && c != '\n' && c != '\t' ? '?' : static_cast<char>(c);
    ++i;
  }
  return records::html_escape(valid);
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// The Ant schema's timestamp has no zone: the report's "...Z" (UTC) without it.
std::string ant_timestamp(std::string iso) {
  if (!iso.empty() && iso.back() == 'Z') iso.pop_back();
  return iso.empty() ? "1970-01-01T00:00:00" : iso;
}

// A replayed file's testcase name: relative to the directory qsacheck ran in when the file lies
// under it, else its last two components ("recorded/default.scenario"): never an absolute path,
// which would differ between CI machines and break the testcase's history.
std::string relative_name(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path p = fs::absolute(fs::path(path), ec).lexically_normal();
  const fs::path cwd = fs::current_path(ec);
  if (!ec) {
    const fs::path rel = p.lexically_relative(cwd);
    if (!rel.empty() && *rel.begin() != "..") return rel.generic_string();
  }
  const fs::path parent = p.parent_path().filename();
  return (parent.empty() ? p.filename() : parent / p.filename()).generic_string();
}

}  // namespace

std::string junit_class(const std::string& backend) {
  std::string kind, what = backend;
  if (const size_t colon = backend.find(':'); colon != std::string::npos) {
    kind = backend.substr(0, colon);
    what = backend.substr(colon + 1);
    if (kind == "plugin" || kind == "worker" || kind == "isolated") {
      // The file's name: a plugin's path (without its #VARIANT), a worker command's last word.
      std::string variant;
      if (const size_t hash = what.find('#'); kind == "plugin" && hash != std::string::npos) {
        variant = "_" + what.substr(hash + 1);
        what = what.substr(0, hash);
      }
      // A worker command's script is its last word that names a file ("python3 w.py --bug 1").
      std::vector<std::string> words;
      std::string word;
      for (const char c : what + " ") {
        if (c == ' ' || c == '"' || c == '\'') {
          if (!word.empty()) words.push_back(word);
          word.clear();
        } else {
          word += c;
        }
      }
      what = words.empty() ? "" : words.back();
      for (auto w = words.rbegin(); w != words.rend(); ++w)
        if (w->find_first_of("./") != std::string::npos) {
          what = *w;
          break;
        }
      what = std::filesystem::path(what).filename().string() + variant;
    }
  }
  std::string out = kind.empty() ? what : kind + "_" + what;
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  return out.empty() ? "backend" : out;
}

std::string junit_xml(const JunitSuite& suite) {
  int64_t failures = 0, skipped = 0;
  double seconds = 0;
  for (const JunitCase& c : suite.cases) {
    failures += c.outcome == JunitCase::Outcome::kFailed;
    skipped += c.outcome == JunitCase::Outcome::kSkipped;
    seconds += c.seconds;
  }
  const std::string tests = " tests=\"" + std::to_string(suite.cases.size()) + "\" failures=\"" +
                            std::to_string(failures) + "\" errors=\"0\"";
  const std::string time = " time=\"" + seconds_text(seconds) + "\"";
  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  // junit-10.xsd allows no `skipped` on <testsuites>; <testsuite> carries it, and the Ant schema's
  // required id, package, hostname and timestamp.
  x << "<testsuites name=\"qsacheck\"" << tests << time << ">\n";
  x << "  <testsuite name=\"" << xml_text(suite.name) << "\" package=\"" << xml_text(suite.package)
    << "\" id=\"0\" hostname=\"" << xml_text(suite.hostname.empty() ? "localhost" : suite.hostname)
    << "\" timestamp=\"" << xml_text(ant_timestamp(suite.timestamp)) << "\"" << tests << " skipped=\""
    << std::to_string(skipped) << "\"" << time << ">\n";
  x << "    <properties>\n";
  for (const auto& [name, value] : suite.properties)
    x << "      <property name=\"" << xml_text(name) << "\" value=\"" << xml_text(value) << "\"/>\n";
  x << "    </properties>\n";
  for (const JunitCase& c : suite.cases) {
    x << "    <testcase classname=\"" << xml_text(c.classname) << "\" name=\"" << xml_text(c.name) << "\" time=\""
      << seconds_text(c.seconds) << "\"";
    if (c.outcome == JunitCase::Outcome::kPassed) {
      x << "/>\n";
      continue;
    }
    x << ">\n";
    if (c.outcome == JunitCase::Outcome::kFailed)
      x << "      <failure type=\"finding\" message=\"" << xml_text(first_line(c.message)) << "\">"
        << xml_text(c.details) << "</failure>\n";
    else
      x << "      <skipped message=\"" << xml_text(first_line(c.message)) << "\"/>\n";
    x << "    </testcase>\n";
  }
  x << "    <system-out/>\n    <system-err/>\n";  // the Ant schema requires both, after the testcases
  x << "  </testsuite>\n</testsuites>\n";
  return x.str();
}

void write_junit(const std::string& path, const JunitSuite& suite, ReportOutput* output) {
  if (auto why = write_output_file(path, junit_xml(suite)))
    output->lost("the JUnit report " + path + " (" + *why + ")");
}

JunitSuite check_junit(const CheckReport& report) {
  JunitSuite suite;
  suite.name = "qsacheck check";
  suite.package = "qsacheck.check";
  suite.hostname = report.run.host;
  suite.timestamp = report.run.started_at;
  std::string backends;
  for (const std::string& b : report.backends) backends += (backends.empty() ? "" : ",") + b;
  suite.properties = {{"seed", std::to_string(report.seed)},
                      {"backends", backends},
                      {"float_tolerance", report.float_tolerance.to_string()},
                      {"verdict", engine::verdict_text(report)}};
  if (!report.stopped_by.empty()) suite.properties.push_back({"stopped_by", report.stopped_by});
  for (const DeclaredLimits& d : report.declared_limits) {  // docs/production-kernels.md
    std::string deviations;
    for (const std::string& name : d.deviations) deviations += (deviations.empty() ? "" : ",") + name;
    if (!deviations.empty()) suite.properties.push_back({"deviations " + d.backend, deviations});
  }
  for (const CheckRow& row : report.rows) {
    JunitCase c{"qsacheck.check." + junit_class(row.backend), row.check, row.seconds, JunitCase::Outcome::kPassed, "", ""};
    if (row.failures > 0) {
      c.outcome = JunitCase::Outcome::kFailed;
      c.message = row.first_failure;
      c.details =
          std::to_string(row.failures) + " of " + std::to_string(row.cases) + " failed; first: " + row.first_failure;
      // The row's own first listed finding (--keep-going lists several, each with its reproducer).
      const auto finding = std::find_if(report.findings.begin(), report.findings.end(), [&](const CheckFinding& f) {
        return f.backend == row.backend && f.check == row.check;
      });
      if (finding != report.findings.end() && !finding->reproducer.empty())
        c.details += "\nreproducer: " + finding->reproducer + "\nreplay: " + finding->replay_command;
    }
    suite.cases.push_back(std::move(c));
  }
  // A planned check with no row did not run (the run stopped at its first finding, or was
  // stopped): skipped, so every run lists the same testcases and a CI history stays whole.
  for (const auto& planned : report.planned) {
    const std::string& check = planned.first;  // named, not bound: C++17 lambdas cannot capture bindings
    const std::string& backend = planned.second;
    const auto ran = std::find_if(report.rows.begin(), report.rows.end(),
                                  [&](const CheckRow& r) { return r.check == check && r.backend == backend; });
    if (ran != report.rows.end()) continue;
    const std::string why = !report.stopped_by.empty() ? "not run: the run was stopped by " + report.stopped_by
                                                       : "not run: the run stopped at its first finding "
                                                         "(--keep-going runs every check)";
    suite.cases.push_back({"qsacheck.check." + junit_class(backend), check, 0, JunitCase::Outcome::kSkipped, why, ""});
  }
  for (const std::string& what : report.not_run)
    suite.cases.push_back({"qsacheck.check.not-run", what, 0, JunitCase::Outcome::kSkipped, what, ""});
  return suite;
}

JunitSuite replay_junit(const nlohmann::json& report) {
  JunitSuite suite;
  suite.name = "qsacheck replay";
  suite.package = "qsacheck.replay";
  const RunFacts now = engine::run_facts_now();
  suite.hostname = now.host;
  suite.timestamp = now.started_at;
  const std::string backend = report.value("backend", "");
  const std::string classname = "qsacheck.replay." + junit_class(backend);
  std::set<std::string> tolerances;
  for (const nlohmann::json& file : report.at("files")) {
    const std::string path = file.value("file", "");
    const std::string tolerance = file.value("float_tolerance", "exact");
    tolerances.insert(tolerance);
    const std::string name = relative_name(path);
    JunitCase c{classname, name, file.value("seconds", 0.0), JunitCase::Outcome::kPassed, "", ""};
    if (file.contains("stopped_by")) {
      c.outcome = JunitCase::Outcome::kSkipped;
      c.message = "stopped by " + file.value("stopped_by", "") + " after " +
                  std::to_string(file.value("steps_run", 0)) + " steps";
    } else if (!file.value("passed", false)) {
      c.outcome = JunitCase::Outcome::kFailed;
      c.message = file.value("failure", "failed");
      c.details = c.message + "\nreplay: " +
                  engine::replay_command(backend, path, traces::parse_float_tolerance(tolerance).value_or(
                                                            traces::FloatTolerance{}));
    }
    suite.cases.push_back(std::move(c));
    if (file.contains("step_update_checked") && !file["step_update_checked"].get<bool>())
      suite.cases.push_back({classname, name + ": the step update", 0, JunitCase::Outcome::kSkipped,
                             "not run: the backend has no step update", ""});
    for (const nlohmann::json& what : file.value("not_run", nlohmann::json::array()))
      suite.cases.push_back({classname, name + ": " + what.get<std::string>(), 0, JunitCase::Outcome::kSkipped,
                             "not run (outside the backend's capabilities): " + what.get<std::string>(), ""});
  }
  std::string tolerance_list;
  for (const std::string& t : tolerances) tolerance_list += (tolerance_list.empty() ? "" : ",") + t;
  suite.properties = {{"backend", backend}, {"float_tolerance", tolerance_list.empty() ? "exact" : tolerance_list}};
  return suite;
}

}  // namespace qsa::cli
