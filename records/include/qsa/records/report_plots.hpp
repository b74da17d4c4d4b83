#pragma once
// The report's plots, drawn by gnuplot as SVG files (docs/decisions.md says why gnuplot).

#include <string>
#include <vector>

#include "qsa/records/report_data.hpp"

namespace qsa::records {

struct Plot {
  std::string file;     // name inside the output directory ("time-BM_StepUpdate.svg")
  std::string section;  // "shapes", "copy" or "history"
  std::string family;
  std::string title;
};

/// The plots the data allows, with their gnuplot script (one script draws them all).
struct PlotScript {
  std::vector<Plot> plots;
  std::string script;
};

/// The plots and the script that writes them into `directory`.
PlotScript plot_script(const ReportData& data, const std::string& directory);

/// How `report` finds gnuplot: $QSA_GNUPLOT when set, else `gnuplot` on $PATH; "" when absent.
std::string find_gnuplot();

/// The message `report` gives when gnuplot is missing.
std::string gnuplot_install_hint();

}  // namespace qsa::records
