#include "qsa/records/report_plots.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

#include "qsa/records/benchmark_name.hpp"
#include "qsa/records/program.hpp"

namespace qsa::records {
namespace {

// A gnuplot single-quoted string: a quote is doubled.
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

// A data-file string column: double quotes inside would end it.
std::string column(std::string text) {
  std::replace(text.begin(), text.end(), '"', '\'');
  return "\"" + text + "\"";
}

std::string value(double v) {
  if (!(v > 0) || !std::isfinite(v)) return "NaN";
  char text[32];
  std::snprintf(text, sizeof(text), "%.6g", v);
  return text;
}

std::string safe_file_part(std::string name) {
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
  return name;
}

// One colour per well-known backend so every plot agrees; others take gnuplot's cycle.
std::string backend_style(const std::string& backend, int index) {
  if (backend == "cuda") return "lc rgb '#1f77b4' pt 7";
  if (backend == "baseline") return "lc rgb '#ff7f0e' pt 5";
  if (backend == "reference") return "lc rgb '#7f7f7f' pt 9";
  return "lc " + std::to_string(index + 4) + " pt " + std::to_string(index + 4);
}

// Registers a plot and starts its part of the script: the SVG terminal, the file, the title.
std::string begin_plot(const Plot& plot, int width, int height, const std::string& dir, PlotScript* out) {
  out->plots.push_back(plot);
  char terminal[160];
  std::snprintf(terminal, sizeof(terminal),
                "set terminal svg size %d,%d noenhanced font 'Sans,12' background rgb 'white'\n", width, height);
  return std::string("reset\n") + terminal + "set grid ytics lc rgb '#dddddd'\nset output " +
         quoted(dir + "/" + plot.file) + "\nset title " + quoted(plot.title) + "\n";
}

void shapes_plot(const FamilyShapes& f, const std::string& dir, PlotScript* out) {
  const std::string file = "time-" + safe_file_part(f.family) + ".svg";
  const std::string title = f.family + ": time per step for each shape and backend";
  std::ostringstream s;
  s << begin_plot(Plot{file, "shapes", f.family, title}, 1000, 460, dir, out)
    << "set logscale y\nset ylabel 'median time per step (us, log scale)'\n";
  s << "set key outside top center horizontal\n";
  s << "set xtics rotate by -30 left font ',10'\nset bmargin 8\nset xrange [-0.5:"
    << static_cast<double>(f.shapes.size()) - 0.5 << "]\n";
  // Shapes are categories: points, no line from one to the next; a rule between shape groups.
  for (size_t i = 1; i < f.shapes.size(); ++i)
    if (f.shapes[i].substr(0, f.shapes[i].find(' ')) != f.shapes[i - 1].substr(0, f.shapes[i - 1].find(' ')))
      s << "set arrow from " << static_cast<double>(i) - 0.5 << ", graph 0 to " << static_cast<double>(i) - 0.5
        << ", graph 1 nohead lc rgb '#bbbbbb' dt 2\n";
  // Columns: index, shape, one time per backend, the time to move the shape's bytes at copy speed.
  s << "$" << safe_file_part(f.family) << "_shapes << EOD\n";
  for (size_t i = 0; i < f.shapes.size(); ++i) {
    s << i << " " << column(f.shapes[i]);
    double copy_time = -1;
    for (const std::string& backend : f.backends) {
      double t = -1;
      for (const ShapePoint& p : f.points)
        if (p.shape == f.shapes[i] && p.backend == backend) {
          t = p.time_us;
          if (p.bytes_per_second > 0 && f.copy_ceiling_bytes_per_second > 0)
            copy_time = p.bytes_per_second * p.time_us / f.copy_ceiling_bytes_per_second;
        }
      s << " " << value(t);
    }
    s << " " << value(copy_time) << "\n";
  }
  s << "EOD\nplot ";
  const std::string data = "$" + safe_file_part(f.family) + "_shapes";
  for (size_t b = 0; b < f.backends.size(); ++b)
    s << (b ? ", " : "") << data << " using 1:" << b + 3 << (b ? "" : ":xtic(2)") << " with points ps 1.3 lw 2 "
      << backend_style(f.backends[b], static_cast<int>(b)) << " title " << quoted(f.backends[b]);
  if (f.copy_ceiling_bytes_per_second > 0) {
    char ceiling[96];
    std::snprintf(ceiling, sizeof(ceiling), "copy ceiling (the bytes at %.2f TB/s)",
                  f.copy_ceiling_bytes_per_second / 1e12);
    s << ", " << data << " using 1:" << f.backends.size() + 3
      << " with points lw 2 lc rgb '#2ca02c' pt 3 ps 1.3 title " << quoted(ceiling);
  }
  if (f.floor_us > 0) {
    char floor[64];
    std::snprintf(floor, sizeof(floor), "empty-kernel floor %.2f us", f.floor_us);
    s << ", " << value(f.floor_us) << " with lines dt 3 lw 2 lc rgb '#d62728' title " << quoted(floor);
  }
  s << "\n";
  out->script += s.str();
}

void copy_plot(const FamilyShapes& f, const std::string& dir, PlotScript* out) {
  if (f.copy_ceiling_bytes_per_second <= 0) return;
  // One series per backend and per shape argument other than N and NR (dtype, kind, shape name).
  std::map<std::string, std::vector<std::pair<double, double>>> series;
  for (const ShapePoint& p : f.points) {
    if (p.bytes_per_second <= 0) continue;
    std::string name = p.backend;
    std::istringstream words(p.shape);
    for (std::string w; words >> w;)
      if (w.rfind("N=", 0) != 0 && w.rfind("NR=", 0) != 0 && w != "decode" && w != "mixed" && w != "prefill")
        name += " " + w;
    series[name].emplace_back(p.tokens, 100 * p.bytes_per_second / f.copy_ceiling_bytes_per_second);
  }
  if (series.empty()) return;
  const std::string file = "copy-" + safe_file_part(f.family) + ".svg";
  const std::string title = f.family + ": bandwidth as % of the copy ceiling against N";
  std::ostringstream s;
  s << begin_plot(Plot{file, "copy", f.family, title}, 1000, 440, dir, out)
    << "set logscale x 2\nset xlabel 'N (tokens in the step)'\n";
  s << "set ylabel '% of the copy ceiling'\nset yrange [0:105]\nset key outside top center horizontal\n";
  int index = 0;
  std::string plot = "plot ";
  for (auto& [name, points] : series) {
    std::sort(points.begin(), points.end());
    const std::string block = "$copy_" + safe_file_part(f.family) + "_" + std::to_string(index);
    s << block << " << EOD\n";
    for (const auto& [n, percent] : points) s << value(n) << " " << value(percent) << "\n";
    s << "EOD\n";
    const std::string backend = name.substr(0, name.find(' '));
    const bool second_kind = name.find("fp8") != std::string::npos;
    plot += (index ? ", " : "") + block + " using 1:2 with linespoints lw 2 " + (second_kind ? "dt 2 " : "") +
            backend_style(backend, index) + " title " + quoted(name);
    ++index;
  }
  s << plot << ", 100 with lines dt 2 lw 2 lc rgb '#2ca02c' title 'copy ceiling'\n";
  out->script += s.str();
}

// One series per shape group ("decode bf16", "ring"; with several backends under test, per backend
// too): a family's 14 to 21 shapes in a handful of lines. A group's value at a record is the
// geometric mean, over its benchmarks in that record, of each one's time relative to its own newest
// time, so 1.0 is today and a shape missing from an old record does not move the line.
void history_plot(const ReportData& data, const std::string& family, const std::string& dir, PlotScript* out) {
  std::vector<const HistorySeries*> series;
  for (const HistorySeries& h : data.history)
    if (h.family == family && !h.points.empty()) series.push_back(&h);
  if (series.empty()) return;
  const std::string file = "history-" + safe_file_part(family) + ".svg";
  std::vector<std::string> backends;
  for (const HistorySeries* h : series)
    if (std::find(backends.begin(), backends.end(), h->backend) == backends.end()) backends.push_back(h->backend);
  std::vector<std::string> groups;  // in the order the shapes come
  std::map<std::string, std::vector<const HistorySeries*>> members;
  for (const HistorySeries* h : series) {
    const std::string group = backends.size() > 1 ? h->backend + " " + h->group : h->group;
    if (members[group].empty()) groups.push_back(group);
    members[group].push_back(h);
  }
  std::string backend_list;
  for (const std::string& b : backends) backend_list += (backend_list.empty() ? "" : ", ") + b;
  const std::string title = family + " (" + backend_list + "): time relative to the newest record, regressions circled";
  std::ostringstream s;
  s << begin_plot(Plot{file, "history", family, title}, 1000, 460, dir, out)
    << "set ylabel 'time / newest time (geometric mean of the group)'\n"
    // At least 0.95 ... 1.05, so run-to-run noise of a few per mille does not fill the panel.
    << "set yrange [*<0.95:1.05<*]\n";
  s << "set xtics rotate by -30 left font ',10'\nset bmargin 7\nset key outside right top font ',10'\n";
  // The x axis holds the records that have this family, in history order.
  std::map<size_t, size_t> position;
  for (const HistorySeries* h : series)
    for (const HistoryPoint& p : h->points) position[p.record] = 0;
  size_t next = 0;
  for (auto& [record, x] : position) x = next++;
  s << "set xrange [-0.5:" << static_cast<double>(position.size()) - 0.5 << "]\n";
  const std::string block = "$history_" + safe_file_part(family);
  std::ostringstream regressions;
  s << block << " << EOD\n";
  for (const auto& [r, x] : position) {
    s << x << " " << column(data.labels[r]);
    for (const std::string& group : groups) {
      double log_sum = 0;
      int n = 0;
      bool regressed = false;
      for (const HistorySeries* h : members[group])
        for (const HistoryPoint& p : h->points)
          if (p.record == r) {
            log_sum += std::log(p.time_us / h->points.back().time_us);
            ++n;
            regressed |= p.regression;
          }
      const double relative = n > 0 ? std::exp(log_sum / n) : -1;
      s << " " << value(relative);
      if (regressed) regressions << x << " " << value(relative) << "\n";
    }
    s << "\n";
  }
  s << "EOD\n" << block << "_regressions << EOD\n" << (regressions.str().empty() ? "NaN NaN\n" : regressions.str());
  s << "EOD\nplot ";
  for (size_t i = 0; i < groups.size(); ++i)
    s << (i ? ", " : "") << block << " using 1:" << i + 3 << (i ? "" : ":xtic(2)") << " with linespoints lw 2 lc "
      << i + 1 << " pt " << (i % 13) + 1 << " title " << quoted(groups[i] + " (" + std::to_string(members[groups[i]].size()) + ")");
  s << ", 1 with lines dt 3 lc rgb '#999999' notitle";
  s << ", " << block << "_regressions using 1:2 with points pt 6 ps 3 lw 2 lc rgb '#d62728' title 'regression'\n";
  out->script += s.str();
}

}  // namespace

PlotScript plot_script(const ReportData& data, const std::string& directory) {
  PlotScript out;
  for (const FamilyShapes& f : data.families) {
    shapes_plot(f, directory, &out);
    copy_plot(f, directory, &out);
  }
  for (const FamilyShapes& f : data.families) history_plot(data, f.family, directory, &out);
  return out;
}

std::string find_gnuplot() {
  const char* chosen = std::getenv("QSA_GNUPLOT");
  return find_program(chosen != nullptr && *chosen != '\0' ? chosen : "gnuplot");
}

std::string gnuplot_install_hint() {
  return "gnuplot draws the report's plots and was not found (set QSA_GNUPLOT or put gnuplot on PATH); "
         "on Debian or Ubuntu: sudo apt-get install gnuplot-nox";
}

}  // namespace qsa::records
