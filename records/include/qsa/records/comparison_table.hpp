#pragma once
// The tables `bench compare` prints: one for people at a terminal, one in Markdown for a pull request.

#include <string>

#include "qsa/records/comparison.hpp"

namespace qsa::records {

struct CompareLabels {
  std::string baseline, candidate;  // how the records are named in the heading
};

std::string comparison_text(const Comparison& comparison, const CompareLabels& labels, const CompareOptions& options);
std::string comparison_markdown(const Comparison& comparison, const CompareLabels& labels,
                                const CompareOptions& options);

/// A time in the unit that suits it: "812 ns", "5.64 us", "1.25 ms".
std::string format_time(double ns);

}  // namespace qsa::records
