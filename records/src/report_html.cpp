#include "qsa/records/report_html.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include "qsa/records/comparison_table.hpp"

namespace qsa::records {
namespace {

const char* kStyle = R"(<style>
body { font-family: sans-serif; margin: 1.5em 2em; color: #222; max-width: 1250px; }
h1 { font-size: 1.6em; } h2 { margin-top: 1.6em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.6em 0; }
th, td { border: 1px solid #ccc; padding: 3px 7px; text-align: left; vertical-align: top; }
th { background: #f0f0f0; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.regression td { background: #fde2e2; } .note { color: #555; font-size: 0.9em; }
.missing { background: #fff4d6; border: 1px solid #e0c060; padding: 0.6em; }
img.plot { display: block; max-width: 100%; margin: 0.8em 0; border: 1px solid #eee; }
code { font-size: 0.9em; }
div.wide { overflow-x: auto; } #environment td { white-space: nowrap; }
p.verdict { font-size: 1.15em; font-weight: bold; padding: 0.5em 0.8em; border-radius: 4px; }
p.verdict.bad { background: #fde2e2; color: #a40000; } p.verdict.ok { background: #e3f4e3; color: #1d5e1d; }
tr.regression td.verdict { color: #a40000; font-weight: bold; } tr.faster td.verdict { color: #1d5e1d; }
td.up { color: #a40000; } td.down { color: #1d5e1d; }
details { margin: 0.6em 0; } summary { cursor: pointer; color: #333; }
details.section > summary { font-size: 1.5em; font-weight: bold; margin-top: 1.2em; }
.figures { display: flex; flex-wrap: wrap; gap: 0.5em 1.5em; } .figures figure { margin: 0; }
</style>)";

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string provenance_text(const Record& r) {
  switch (r.provenance) {
    case Provenance::kMeasured:
      return "measured";
    case Provenance::kImported:
      return "imported (aggregates only)";
    case Provenance::kPlain:
      return "plain Google Benchmark (unknown environment)";
  }
  return "";
}

int most_repetitions(const Record& r) {
  int most = 0;
  for (const BenchmarkTimes& b : benchmark_times(r)) most = std::max(most, static_cast<int>(b.repetitions.size()));
  return most;
}

std::string file_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

// "2026-12-01 19:21 49a514f (2026-12-01-...json)": a record's label with its file's name, once.
std::string label_and_file(const ReportData& data, size_t r) {
  const std::string file = file_name(data.records[r].source);
  const std::string stem = file.substr(0, file.rfind(".json"));
  return data.labels[r].find(stem) != std::string::npos ? data.labels[r] : data.labels[r] + " (" + file + ")";
}

// One row per record, in history order; paths by their file names (a record's paths are those of
// the machine that wrote it).
void environment_table(const ReportData& data, std::ostringstream& out) {
  const char* keys[][2] = {{"gpu_name", "GPU"},
                           {"gpu_sm_count", "SMs"},
                           {"gpu_sm_clock_mhz_start", "SM clock (MHz) start"},
                           {"gpu_sm_clock_mhz_end", "end"},
                           {"gpu_mem_clock_mhz_start", "memory clock (MHz)"},
                           {"gpu_driver", "driver"},
                           {"cuda_version", "CUDA"},
                           {"qsacheck_version", "qsacheck"},
                           {"spec_version", "SPEC"},
                           {"backend", "backend"},
                           {"executable", "executable"}};
  out << "<div class=\"wide\"><table id=\"environment\"><tr><th>record</th><th>file</th><th>kind</th>"
         "<th>benchmarks</th><th>repetitions</th>";
  for (const auto& key : keys) out << "<th>" << key[1] << "</th>";
  out << "</tr>\n";
  for (size_t i = 0; i < data.records.size(); ++i) {
    const Record& r = data.records[i];
    out << "<tr><td>" << html_escape(data.labels[i]) << "</td><td>" << html_escape(file_name(r.source)) << "</td><td>"
        << provenance_text(r) << "</td><td class=\"num\">" << benchmark_times(r).size() << "</td><td class=\"num\">"
        << most_repetitions(r) << "</td>";
    for (const auto& key : keys) {
      std::string v = r.context_text(key[0]);
      if (std::string(key[0]) == "executable") v = file_name(v);
      out << "<td>" << (v.empty() ? "<span class=\"note\">unknown</span>" : html_escape(v)) << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</table></div>\n";
}

void shapes_table(const FamilyShapes& f, const ReportData& data, std::ostringstream& out) {
  out << "<details><summary>Median time per step, as a table</summary>\n<p class=\"note\">From "
      << html_escape(label_and_file(data, f.record));
  for (size_t r : f.other_records) out << ", " << html_escape(label_and_file(data, r));
  char text[96];
  if (f.floor_us > 0) {
    std::snprintf(text, sizeof(text), "; empty-kernel floor %.2f us", f.floor_us);
    out << text;
  }
  if (f.copy_ceiling_bytes_per_second > 0) {
    std::snprintf(text, sizeof(text), "; copy ceiling %.2f TB/s", f.copy_ceiling_bytes_per_second / 1e12);
    out << text;
  }
  out << ".</p>\n<table class=\"shapes\"><tr><th>shape</th>";
  for (const std::string& b : f.backends) out << "<th>" << html_escape(b) << "</th>";
  out << "</tr>\n";
  for (const std::string& shape : f.shapes) {
    out << "<tr><td>" << html_escape(shape) << "</td>";
    for (const std::string& b : f.backends) {
      std::string cell = "-";
      for (const ShapePoint& p : f.points)
        if (p.shape == shape && p.backend == b) cell = format_time(p.time_us * 1e3);
      out << "<td class=\"num\">" << cell << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</table></details>\n";
}

void regressions_table(const ReportData& data, std::ostringstream& out) {
  std::ostringstream rows;
  int count = 0;
  for (const HistorySeries& h : data.history)
    for (size_t i = 0; i < h.points.size(); ++i) {
      const HistoryPoint& p = h.points[i];
      if (!p.regression) continue;
      ++count;
      char change[32];
      std::snprintf(change, sizeof(change), "%+.1f%%", 100 * p.change);
      char pv[32];
      std::snprintf(pv, sizeof(pv), "%.4f", p.p_value);
      rows << "<tr class=\"regression\"><td><code>" << html_escape(h.key) << "</code></td><td>"
           << html_escape(data.labels[h.points[i - 1].record]) << "</td><td>"
           << html_escape(data.labels[p.record]) << "</td><td class=\"num\">" << change << "</td><td>"
           << (p.p_value < 0 ? "untested (no repetitions)" : pv) << "</td></tr>\n";
    }
  if (count == 0) {
    out << "<p id=\"regressions\">No regression between consecutive records of the history.</p>\n";
    return;
  }
  out << "<table id=\"regressions\"><tr><th>benchmark</th><th>from</th><th>to</th><th>change</th><th>p</th></tr>\n"
      << rows.str() << "</table>\n";
}

// The summary: each family's newest record against the record before it, benchmark by benchmark
// (the backend under test), regressions first in red; the headline counts them.
void summary_section(const ReportData& data, const CompareOptions& options, std::ostringstream& out) {
  std::ostringstream body;
  int regressions = 0, compared = 0;
  for (const FamilyShapes& f : data.families) {
    std::vector<const HistorySeries*> series;
    for (const HistorySeries& h : data.history)
      if (h.family == f.family && !h.points.empty()) series.push_back(&h);
    if (series.empty()) continue;
    // The pair of records most benchmarks of the family compare (one, unless records differ in shapes).
    std::map<std::pair<size_t, size_t>, int> pairs;
    for (const HistorySeries* h : series)
      if (h->points.size() > 1) ++pairs[{h->points[h->points.size() - 2].record, h->points.back().record}];
    const Record& newest = data.records[series.front()->points.back().record];
    body << "<h3>" << html_escape(f.family) << "</h3>\n";
    if (pairs.empty()) {
      body << "<p class=\"note\">One record only (" << html_escape(data.labels[series.front()->points.back().record])
           << "): nothing to compare yet.</p>\n";
      continue;
    }
    const auto common = std::max_element(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) {
                          return a.second < b.second;
                        })->first;
    auto gpu = newest.context_text("gpu_name"), commit = newest.context_text("qsacheck_commit");
    body << "<p class=\"note\">Newest <b>" << html_escape(label_and_file(data, common.second)) << "</b>, GPU "
         << html_escape(gpu.empty() ? "unknown" : gpu) << ", commit "
         << html_escape(commit.empty() ? "unknown" : commit.substr(0, 12)) << "; against "
         << html_escape(label_and_file(data, common.first)) << ".</p>\n";
    std::set<std::string> backends;
    for (const HistorySeries* h : series) backends.insert(h->backend);
    body << "<table class=\"summary\"><tr><th>" << html_escape(backends.size() > 1 ? "benchmark" : *backends.begin() + ": shape") << "</th><th>previous</th><th>newest</th><th>change</th>"
            "<th>p</th><th>verdict</th></tr>\n";
    std::vector<std::pair<int, std::string>> rows;  // (order: regressions first, row)
    for (const HistorySeries* h : series) {
      if (h->points.size() < 2) continue;
      const HistoryPoint& now = h->points.back();
      const HistoryPoint& before = h->points[h->points.size() - 2];
      ++compared;
      regressions += now.regression ? 1 : 0;
      const char* verdict = now.regression ? "REGRESSION" : to_string(now.verdict);
      char change[32], pv[32];
      std::snprintf(change, sizeof(change), "%+.1f%%", 100 * now.change);
      std::snprintf(pv, sizeof(pv), "%.4f", now.p_value);
      std::ostringstream row;
      row << "<tr class=\"" << (now.regression ? "regression" : now.verdict == Verdict::kFaster ? "faster" : "same")
          << "\"><td>" << html_escape(backends.size() > 1 ? h->backend + " " + h->shape : h->shape);
      if (std::make_pair(before.record, now.record) != common)
        row << " <span class=\"note\">(" << html_escape(data.labels[before.record]) << " to "
            << html_escape(data.labels[now.record]) << ")</span>";
      row << "</td><td class=\"num\">" << format_time(before.time_us * 1e3) << "</td><td class=\"num\">"
          << format_time(now.time_us * 1e3) << "</td><td class=\"num "
          << (now.change > options.threshold ? "up" : now.change < -options.threshold ? "down" : "") << "\">" << change
          << "</td><td class=\"num\">" << (now.p_value < 0 ? "untested" : pv) << "</td><td class=\"verdict\">"
          << verdict << "</td></tr>\n";
      rows.emplace_back(now.regression ? 0 : 1, row.str());
    }
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& row : rows) body << row.second;
    body << "</table>\n";
  }
  out << "<h2>Summary: newest against previous</h2>\n";
  if (compared == 0)
    out << "<p class=\"verdict ok\">No two records of one benchmark yet: nothing compared.</p>\n";
  else if (regressions == 0)
    out << "<p class=\"verdict ok\">No regression: " << compared
        << " benchmarks of the newest records against the records before them.</p>\n";
  else
    out << "<p class=\"verdict bad\">" << regressions << " regression" << (regressions == 1 ? "" : "s") << " of "
        << compared << " benchmarks in the newest records (listed first, in red).</p>\n";
  char rule[200];
  std::snprintf(rule, sizeof(rule),
                "A regression: slower by more than %.1f%%, significant by the U test at alpha %.3g where both "
                "records have repetitions (beyond the threshold where they do not).",
                100 * options.threshold, options.alpha);
  out << "<p class=\"note\">" << rule << "</p>\n" << body.str();
}

void plot_images(const HtmlInputs& in, const std::string& section, const std::string& family, std::ostringstream& out) {
  for (const Plot& p : in.plots)
    if (p.section == section && p.family == family)
      out << "<figure><img class=\"plot\" alt=\"" << html_escape(p.title) << "\" src=\"data:image/svg+xml;base64,"
          << base64(read_file(in.directory + "/" + p.file)) << "\"><figcaption class=\"note\">" << html_escape(p.title)
          << " (<a href=\"" << html_escape(p.file) << "\">" << html_escape(p.file) << "</a>)</figcaption></figure>\n";
}

}  // namespace

std::string base64(const std::string& bytes) {
  static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const size_t n = std::min<size_t>(3, bytes.size() - i);
    uint32_t word = 0;
    for (size_t k = 0; k < 3; ++k) word = word << 8 | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
    for (size_t k = 0; k < 4; ++k) out += k <= n ? digits[(word >> (18 - 6 * k)) & 63] : '=';
  }
  return out;
}

std::string html_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string report_html(const HtmlInputs& in) {
  const ReportData& data = *in.data;
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>qsacheck benchmark report</title>\n"
      << kStyle << "</head><body>\n<h1>qsacheck benchmark report</h1>\n<p class=\"note\">" << data.records.size()
      << " record(s), from " << html_escape(label_and_file(data, 0)) << " to "
      << html_escape(label_and_file(data, data.records.size() - 1))
      << ". Generated by " << html_escape(in.generator) << ". Records and their format: docs/bench-records.md.</p>\n";
  if (!in.missing_plots.empty())
    out << "<p class=\"missing\" id=\"missing-plots\">Plots not drawn: " << html_escape(in.missing_plots) << "</p>\n";
  summary_section(data, in.options, out);
  out << "<h2>Time per shape</h2>\n<p class=\"note\">The newest record of each benchmark family: each backend's "
         "median time per step, shape by shape, against the empty-kernel floor and the copy ceiling (the time the "
         "step's bytes take at the speed of a device copy).</p>\n";
  for (const FamilyShapes& f : data.families) {
    out << "<h3>" << html_escape(f.family) << "</h3>\n";
    plot_images(in, "shapes", f.family, out);
    shapes_table(f, data, out);
  }
  out << "<h2>Bandwidth against N</h2>\n<p class=\"note\">Bytes that must move per step over the median time, "
         "as a share of the copy ceiling (a roofline-style picture: 100% is a device copy).</p>\n";
  for (const FamilyShapes& f : data.families) plot_images(in, "copy", f.family, out);
  out << "<h2>History</h2>\n<p class=\"note\">Records ordered by date and commit; one line per shape group, "
         "each shape's time relative to its newest time (1.0 is today), a group being the geometric mean of its "
         "shapes (their count in the key).</p>\n";
  for (const FamilyShapes& f : data.families) plot_images(in, "history", f.family, out);
  regressions_table(data, out);
  out << "<details class=\"section\" id=\"environment-section\"><summary>Environment of the " << data.records.size()
      << " records</summary>\n";
  environment_table(data, out);
  out << "</details>\n</body></html>\n";
  return out.str();
}

}  // namespace qsa::records
