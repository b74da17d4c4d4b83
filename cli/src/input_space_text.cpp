#include "input_space_text.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include "output.hpp"
#include "qsa/engine/input_space.hpp"
#include "qsa/engine/input_space_report.hpp"

namespace qsa::cli {

using engine::InputClass;

void print_input_space(const engine::InputSpaceCoverage& coverage, std::FILE* out, bool list) {
  const bool complete = coverage.gap_keys().empty();
  int needs_limits_unreached = 0;  // not gaps: only a backend with declared limits reaches them
  for (const InputClass& row : engine::input_classes())
    if (row.needs_declared_limits && !coverage.reached(row.which)) ++needs_limits_unreached;
  const std::string apart = needs_limits_unreached == 0 ? ""
                                                        : "; " + std::to_string(needs_limits_unreached) +
                                                              " reached only on a backend with declared limits";
  std::fprintf(out, "input space: %d/%d classes reached, %d ranges with edges missed (docs/input-space.md%s%s)\n",
               coverage.reached_rows(), engine::kNumInputClasses, engine::edges_missed(coverage), apart.c_str(),
               list || complete ? "" : "; listed by check --input-space and in the JSON report's input_space");
  if (!list) return;
  std::string unreached, needs_limits;
  for (const InputClass& row : engine::input_classes())
    if (!coverage.reached(row.which) && row.needs_declared_limits) {
      needs_limits += std::string(needs_limits.empty() ? "" : ", ") + row.id;
    } else if (!coverage.reached(row.which)) {
      const engine::InputClassCount& c = coverage.at(row.which);
      const char* which = c.count == 0 ? "" : c.steps == 0 ? " (no step)" : " (no batch)";
      unreached += std::string(unreached.empty() ? "" : ", ") + row.id + which;
    }
  if (!unreached.empty()) std::fprintf(out, "  not reached: %s\n", unreached.c_str());
  // Not a gap: only a backend whose declared limits exclude some call reaches these (docs/input-space.md).
  if (!needs_limits.empty())
    std::fprintf(out, "  reached only on a backend with declared limits: %s\n", needs_limits.c_str());
  std::string missed;
  for (const InputClass& row : engine::input_classes()) {
    if (coverage.at(row.which).count == 0) continue;
    std::string edges;
    for (const std::string& e : coverage.missed_edges(row.which)) edges += (edges.empty() ? "" : " ") + e;
    if (!edges.empty()) missed += std::string(missed.empty() ? "" : ", ") + row.id + " (" + edges + ")";
  }
  if (!missed.empty()) std::fprintf(out, "  edges missed: %s\n", missed.c_str());
}

bool matches_known_gaps(const engine::InputSpaceCoverage& coverage, const std::set<std::string>& known,
                        const std::string& list_name, std::FILE* out) {
  const std::vector<std::string> keys = coverage.gap_keys();
  const std::set<std::string> now(keys.begin(), keys.end());
  std::vector<std::string> fresh, gone;
  std::set_difference(now.begin(), now.end(), known.begin(), known.end(), std::back_inserter(fresh));
  std::set_difference(known.begin(), known.end(), now.begin(), now.end(), std::back_inserter(gone));
  for (const std::string& key : fresh) std::fprintf(out, "NEW GAP  %s (not in %s)\n", key.c_str(), list_name.c_str());
  for (const std::string& key : gone)
    std::fprintf(out, "NOT A GAP  %s: reached now, or not a gap key; remove it from %s\n", key.c_str(),
                 list_name.c_str());
  std::fprintf(out, "%zu gap(s): %zu known, %zu new, %zu listed but not a gap\n", now.size(), known.size(),
               fresh.size(), gone.size());
  return fresh.empty() && gone.empty();
}

std::set<std::string> read_key_list(const char* flag, const std::string& path) {
  std::string text;
  try {
    text = read_input(path);
  } catch (const InputError& e) {
    Error error = e.error();
    error.field = flag;
    throw InputError(error);
  }
  std::istringstream lines(text);
  std::set<std::string> keys;
  for (std::string line; std::getline(lines, line);) {
    line = line.substr(0, line.find('#'));
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    keys.insert(line.substr(first, line.find_last_not_of(" \t\r") - first + 1));
  }
  return keys;
}

}  // namespace qsa::cli
