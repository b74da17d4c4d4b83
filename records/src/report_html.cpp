#include "qsa/records/report_html.hpp"

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
div.wide { overflow-x: auto; } #environment td, #environment th { max-width: 16em; overflow-wrap: anywhere; }
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

void environment_table(const ReportData& data, std::ostringstream& out) {
  const char* keys[][2] = {{"date", "date"},
                           {"qsacheck_commit", "commit"},
                           {"gpu_name", "GPU"},
                           {"gpu_sm_count", "SMs"},
                           {"gpu_sm_clock_mhz_start", "SM clock start (MHz)"},
                           {"gpu_sm_clock_mhz_end", "SM clock end (MHz)"},
                           {"gpu_mem_clock_mhz_start", "memory clock (MHz)"},
                           {"gpu_driver", "driver"},
                           {"cuda_version", "CUDA"},
                           {"qsacheck_version", "qsacheck"},
                           {"spec_version", "SPEC"},
                           {"backend", "backend"},
                           {"executable", "executable"},
                           {"command_line", "command line"},
                           {"imported_from", "imported from"}};
  // One column per record (in history order), one row per field: long values wrap in their column.
  out << "<div class=\"wide\"><table id=\"environment\"><tr><th>record</th>";
  for (const Record& r : data.records) out << "<th>" << html_escape(r.source) << "</th>";
  out << "</tr>\n<tr><th>kind</th>";
  for (const Record& r : data.records) out << "<td>" << provenance_text(r) << "</td>";
  out << "</tr>\n<tr><th>benchmarks</th>";
  for (const Record& r : data.records) out << "<td class=\"num\">" << benchmark_times(r).size() << "</td>";
  out << "</tr>\n<tr><th>repetitions</th>";
  for (const Record& r : data.records) out << "<td class=\"num\">" << most_repetitions(r) << "</td>";
  out << "</tr>\n";
  for (const auto& key : keys) {
    out << "<tr><th>" << key[1] << "</th>";
    for (const Record& r : data.records) {
      const std::string v = r.context_text(key[0]);
      out << "<td>" << (v.empty() ? "<span class=\"note\">unknown</span>" : html_escape(v)) << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</table></div>\n";
}

void shapes_table(const FamilyShapes& f, const ReportData& data, std::ostringstream& out) {
  out << "<p class=\"note\">From " << html_escape(data.records[f.record].source) << " ("
      << html_escape(record_label(data.records[f.record])) << ")";
  for (size_t r : f.other_records)
    out << ", " << html_escape(data.records[r].source) << " (" << html_escape(record_label(data.records[r])) << ")";
  char text[96];
  if (f.floor_us > 0) {
    std::snprintf(text, sizeof(text), "; empty-kernel floor %.2f us", f.floor_us);
    out << text;
  }
  if (f.copy_ceiling_bytes_per_second > 0) {
    std::snprintf(text, sizeof(text), "; copy ceiling %.2f TB/s", f.copy_ceiling_bytes_per_second / 1e12);
    out << text;
  }
  out << ". Median time per step:</p>\n<table class=\"shapes\"><tr><th>shape</th>";
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
  out << "</table>\n";
}

void regressions_table(const ReportData& data, const CompareOptions& options, std::ostringstream& out) {
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
           << html_escape(record_label(data.records[h.points[i - 1].record])) << "</td><td>"
           << html_escape(record_label(data.records[p.record])) << "</td><td class=\"num\">" << change << "</td><td>"
           << (p.p_value < 0 ? "untested (no repetitions)" : pv) << "</td></tr>\n";
    }
  char rule[200];
  std::snprintf(rule, sizeof(rule),
                "A regression: slower than the previous record of the same benchmark by more than %.1f%%, "
                "significant by the U test at alpha %.3g where both records have repetitions.",
                100 * options.threshold, options.alpha);
  out << "<p class=\"note\">" << rule << "</p>\n";
  if (count == 0) {
    out << "<p id=\"regressions\">No regression between consecutive records.</p>\n";
    return;
  }
  out << "<table id=\"regressions\"><tr><th>benchmark</th><th>from</th><th>to</th><th>change</th><th>p</th></tr>\n"
      << rows.str() << "</table>\n";
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
      << " record(s), from " << html_escape(record_label(data.records.front())) << " to "
      << html_escape(record_label(data.records.back())) << ". Generated by " << html_escape(in.generator)
      << ". Records and their format: docs/bench-records.md.</p>\n";
  if (!in.missing_plots.empty())
    out << "<p class=\"missing\" id=\"missing-plots\">Plots not drawn: " << html_escape(in.missing_plots) << "</p>\n";
  out << "<h2>Time per shape</h2>\n<p class=\"note\">The newest record of each benchmark family, each backend's "
         "median time per step against the empty-kernel floor and the copy ceiling (the time the step's bytes "
         "take at the speed of a device copy).</p>\n";
  for (const FamilyShapes& f : data.families) {
    out << "<h3>" << html_escape(f.family) << "</h3>\n";
    plot_images(in, "shapes", f.family, out);
    shapes_table(f, data, out);
  }
  out << "<h2>Bandwidth against N</h2>\n<p class=\"note\">Bytes that must move per step over the median time, "
         "as a share of the copy ceiling (a roofline-style picture: 100% is a device copy).</p>\n";
  for (const FamilyShapes& f : data.families) plot_images(in, "copy", f.family, out);
  out << "<h2>History</h2>\n<p class=\"note\">Records ordered by date and commit.</p>\n";
  for (const FamilyShapes& f : data.families) plot_images(in, "history", f.family, out);
  regressions_table(data, in.options, out);
  out << "<h2>Environment</h2>\n";
  environment_table(data, out);
  out << "</body></html>\n";
  return out.str();
}

}  // namespace qsa::records
