// `qsacheck report FILES... -o DIR`: a self-contained HTML page with plots of benchmark records
// (time per shape against the floor and the copy ceiling, % of the copy ceiling against N, the
// history with regressions marked, the environment of each record), and the plots as SVG files
// beside it. gnuplot draws them; without it the page holds the tables only and the exit code is 3.

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "output.hpp"
#include "output_file.hpp"
#include "qsa/records/program.hpp"
#include "qsa/records/record.hpp"
#include "qsa/records/report_data.hpp"
#include "qsa/records/report_html.hpp"
#include "qsa/records/report_plots.hpp"
#include "qsa/traces/json_reader.hpp"
#include "record_file.hpp"
#include "version.hpp"

namespace qsa::cli {
namespace {

struct ReportArgs {
  std::vector<std::string> files;
  std::string out_dir;
  double alpha = 0.05;
  double threshold_percent = 5;
};

void write_file(const std::string& path, const std::string& text) {
  if (auto why = write_output_file(path, text)) throw InputError(Error{"out-dir", -1, "unwritable", *why});
}

std::string tail_of(const std::string& path) {
  const std::string text = read_input(path);
  return text.size() > 600 ? text.substr(text.size() - 600) : text;
}

int report(const ReportArgs& args) {
  if (!(args.alpha > 0 && args.alpha < 1))
    return report_error(Error{"--alpha", -1, "out-of-range", "--alpha must lie in (0, 1)"});
  if (!(std::isfinite(args.threshold_percent) && args.threshold_percent >= 0))
    return report_error(
        Error{"--threshold", -1, "out-of-range", "--threshold must be a finite, non-negative percentage"});
  std::vector<records::Record> loaded;
  for (size_t i = 0; i < args.files.size(); ++i)
    loaded.push_back(read_record_file(args.files[i], "records[" + std::to_string(i) + "]"));
  if (mkdir(args.out_dir.c_str(), 0755) != 0 && errno != EEXIST)
    return report_error(Error{"out-dir", -1, "unwritable", "cannot create " + args.out_dir});
  records::CompareOptions options;
  options.alpha = args.alpha;
  options.threshold = args.threshold_percent / 100;
  const records::ReportData data = records::build_report_data(std::move(loaded), options);

  records::HtmlInputs html;
  html.data = &data;
  html.directory = args.out_dir;
  html.options = options;
  html.generator = std::string("qsacheck ") + tool_version() + " (commit " + git_commit() + ")";
  const std::string gnuplot = records::find_gnuplot();
  if (gnuplot.empty()) {
    html.missing_plots = records::gnuplot_install_hint();
  } else {
    const records::PlotScript plots = records::plot_script(data, args.out_dir);
    const std::string script = args.out_dir + "/.report-plots.gp", log = args.out_dir + "/.report-plots.log";
    write_file(script, plots.script);
    std::remove(log.c_str());
    const int rc = records::run_program({gnuplot, script}, log);
    if (rc != 0) {
      // Exit 2 leaves no half-drawn plot behind: the SVGs gnuplot got to are removed;
      // its script and log are named in the error, so they stay.
      for (const records::Plot& p : plots.plots) std::remove((args.out_dir + "/" + p.file).c_str());
      return report_error(Error{"gnuplot", rc, "failed",
                                gnuplot + " " + script + " exited with " + std::to_string(rc) + ": " + tail_of(log)});
    }
    std::remove(script.c_str());
    std::remove(log.c_str());
    html.plots = plots.plots;
  }
  const std::string page = args.out_dir + "/index.html";
  write_file(page, records::report_html(html));
  std::cout << "wrote " << page << " (" << data.records.size() << " records, " << html.plots.size() << " plots)\n";
  for (const records::Plot& p : html.plots) std::cout << "wrote " << args.out_dir << "/" << p.file << "\n";
  if (gnuplot.empty()) {
    std::cerr << "qsacheck report: " << html.missing_plots << "\n";
    std::cout << "INCOMPLETE: no plots (" << html.missing_plots << ")\n";
    return kExitIncomplete;
  }
  return kExitOk;
}

}  // namespace

void add_report_command(CLI::App& app, CommandJob* job) {
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Draw benchmark records (Google Benchmark JSON, docs/bench-records.md) as one self-contained\n"
      "HTML page, DIR/index.html, with the plots as SVG files beside it: time per shape against the\n"
      "floor and the copy ceiling, % of the copy ceiling against N, the history across records with\n"
      "regressions marked, the environment of each record. Needs gnuplot (Debian: gnuplot-nox);\n"
      "without it the page has the tables only and the exit code is 3. Exit 2: a bad record.\n"
      "Example: qsacheck report records/history/*.json -o report");
  auto a = std::make_shared<ReportArgs>();
  cmd->add_option("files", a->files, "Benchmark records")->required();
  cmd->add_option("-o,--out-dir", a->out_dir, "Output directory")->required();
  cmd->add_option("--alpha", a->alpha, "Significance level of the U test marking regressions")->capture_default_str();
  cmd->add_option("--threshold", a->threshold_percent, "Slowdown (percent) marked as a regression")
      ->capture_default_str();
  cmd->callback([=] { *job = [=] { return report(*a); }; });
}

}  // namespace qsa::cli
