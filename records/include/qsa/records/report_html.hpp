#pragma once
// The report page: one self-contained HTML file (plots embedded as data: URIs, inline CSS, no
// script, nothing fetched from a network).

#include <string>
#include <vector>

#include "qsa/records/comparison.hpp"
#include "qsa/records/report_data.hpp"
#include "qsa/records/report_plots.hpp"

namespace qsa::records {

struct HtmlInputs {
  const ReportData* data = nullptr;
  std::vector<Plot> plots;  // drawn, their SVG files in `directory`
  std::string directory;
  std::string missing_plots;  // why no plots were drawn ("" when they were)
  std::string generator;      // "qsacheck 0.1.0 (commit ...)"
  CompareOptions options;
};

std::string report_html(const HtmlInputs& inputs);

/// RFC 4648 base64 of bytes (the data: URIs).
std::string base64(const std::string& bytes);

/// Text escaped for HTML (and XML) element content and attribute values.
std::string html_escape(const std::string& text);

}  // namespace qsa::records
