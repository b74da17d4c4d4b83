#include "junit_report.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>

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

}  // namespace

std::string junit_xml(const JunitSuite& suite) {
  int64_t failures = 0, skipped = 0;
  double seconds = 0;
  for (const JunitCase& c : suite.cases) {
    failures += c.outcome == JunitCase::Outcome::kFailed;
    skipped += c.outcome == JunitCase::Outcome::kSkipped;
    seconds += c.seconds;
  }
  const std::string counts = " tests=\"" + std::to_string(suite.cases.size()) + "\" failures=\"" +
                             std::to_string(failures) + "\" errors=\"0\" skipped=\"" + std::to_string(skipped) +
                             "\" time=\"" + seconds_text(seconds) + "\"";
  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x << "<testsuites name=\"qsacheck\"" << counts << ">\n";
  x << "  <testsuite name=\"" << xml_text(suite.name) << "\"" << counts << ">\n";
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
  std::string backends;
  for (const std::string& b : report.backends) backends += (backends.empty() ? "" : ",") + b;
  suite.properties = {{"seed", std::to_string(report.seed)},
                      {"backends", backends},
                      {"float_tolerance", report.float_tolerance.to_string()},
                      {"verdict", verdict_text(report)}};
  if (!report.stopped_by.empty()) suite.properties.push_back({"stopped_by", report.stopped_by});
  for (const DeclaredLimits& d : report.declared_limits) {  // docs/production-kernels.md
    std::string deviations;
    for (const std::string& name : d.deviations) deviations += (deviations.empty() ? "" : ",") + name;
    if (!deviations.empty()) suite.properties.push_back({"deviations " + d.backend, deviations});
  }
  for (const CheckRow& row : report.rows) {
    JunitCase c{"qsacheck.check." + row.backend, row.check, row.seconds, JunitCase::Outcome::kPassed, "", ""};
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
  for (const std::string& what : report.not_run)
    suite.cases.push_back({"qsacheck.check.not-run", what, 0, JunitCase::Outcome::kSkipped, what, ""});
  return suite;
}

JunitSuite replay_junit(const nlohmann::json& report) {
  JunitSuite suite;
  suite.name = "qsacheck replay";
  const std::string backend = report.value("backend", "");
  const std::string classname = "qsacheck.replay." + backend;
  std::set<std::string> tolerances;
  for (const nlohmann::json& file : report.at("files")) {
    const std::string path = file.value("file", "");
    const std::string tolerance = file.value("float_tolerance", "exact");
    tolerances.insert(tolerance);
    JunitCase c{classname, path, file.value("seconds", 0.0), JunitCase::Outcome::kPassed, "", ""};
    if (file.contains("stopped_by")) {
      c.outcome = JunitCase::Outcome::kSkipped;
      c.message = "stopped by " + file.value("stopped_by", "") + " after " +
                  std::to_string(file.value("steps_run", 0)) + " steps";
    } else if (!file.value("passed", false)) {
      c.outcome = JunitCase::Outcome::kFailed;
      c.message = file.value("failure", "failed");
      c.details = c.message + "\nreplay: qsacheck replay --backend " + backend +
                  (tolerance == "exact" ? "" : " --float-tolerance " + tolerance) + " " + path;
    }
    suite.cases.push_back(std::move(c));
    if (file.contains("step_update_checked") && !file["step_update_checked"].get<bool>())
      suite.cases.push_back({classname, path + ": the step update", 0, JunitCase::Outcome::kSkipped,
                             "not run: the backend has no step update", ""});
    for (const nlohmann::json& what : file.value("not_run", nlohmann::json::array()))
      suite.cases.push_back({classname, path + ": " + what.get<std::string>(), 0, JunitCase::Outcome::kSkipped,
                             "not run (outside the backend's capabilities): " + what.get<std::string>(), ""});
  }
  std::string tolerance_list;
  for (const std::string& t : tolerances) tolerance_list += (tolerance_list.empty() ? "" : ",") + t;
  suite.properties = {{"backend", backend}, {"float_tolerance", tolerance_list.empty() ? "exact" : tolerance_list}};
  return suite;
}

}  // namespace qsa::cli
