#include "qsa/engine/input_space_report.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <sstream>
#include <vector>

#include "qsa/engine/check_report_reader.hpp"
#include "qsa/traces/json_reader.hpp"

namespace qsa::engine {
namespace {

using engine::InputClass;
using engine::InputClassId;

const InputClass* row_by_id(const std::string& id) {
  static const std::map<std::string, const InputClass*> by_id = [] {
    std::map<std::string, const InputClass*> m;
    for (const InputClass& row : engine::input_classes()) m[row.id] = &row;
    return m;
  }();
  const auto it = by_id.find(id);
  return it == by_id.end() ? nullptr : it->second;
}

int edge_by_name(const std::string& name) {
  for (int e = 0; e < engine::kNumEdges; ++e)
    if (name == engine::edge_name(e)) return e;
  return -1;
}


}  // namespace

int edges_missed(const engine::InputSpaceCoverage& coverage) {
  int missed = 0;
  for (const InputClass& row : engine::input_classes())
    if (coverage.at(row.which).count > 0 && !coverage.missed_edges(row.which).empty()) ++missed;
  return missed;
}

nlohmann::json input_space_to_json(const engine::InputSpaceCoverage& coverage) {
  nlohmann::json rows = nlohmann::json::array();
  for (const InputClass& row : engine::input_classes()) {
    const engine::InputClassCount& c = coverage.at(row.which);
    nlohmann::json j = {{"id", row.id},     {"spec", row.clause}, {"inputs", engine::to_string(row.scope)},
                        {"count", c.count}, {"steps", c.steps},   {"reached", coverage.reached(row.which)}};
    if (row.needs_declared_limits) j["needs_declared_limits"] = true;  // never a gap (docs/input-space.md)
    if (row.values != engine::ValueSet::kClass) {
      if (c.count > 0) {
        j["min"] = c.min;
        j["max"] = c.max;
      }
      j["lo"] = row.lo;
      j["hi"] = row.hi;
      j["hi_per_input"] = row.hi_per_input;
      std::vector<std::string> hit;
      for (int e = 0; e < engine::kNumEdges; ++e)
        if (c.edges[e]) hit.emplace_back(engine::edge_name(e));
      j["edges_hit"] = hit;
      j["edges_missed"] = coverage.missed_edges(row.which);
    }
    rows.push_back(j);
  }
  return {{"classes", engine::kNumInputClasses},
          {"reached", coverage.reached_rows()},
          {"edges_missed", edges_missed(coverage)},
          {"rows", rows}};
}

engine::InputSpaceCoverage input_space_from_json(const nlohmann::json& json, const std::string& context) {
  traces::JsonObjectReader r(json, context);
  engine::InputSpaceCoverage coverage;
  const nlohmann::json& rows = r.raw("rows");
  if (!rows.is_array()) r.fail("rows", -1, "wrong-type", "expected an array of classes");
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string where = context + "rows[" + std::to_string(i) + "].";
    traces::JsonObjectReader o(rows[i], where);
    const std::string id = o.string("id");
    const InputClass* row = row_by_id(id);
    if (row == nullptr)
      o.fail("id", -1, "unknown-class",
             "'" + id + "' is not a class of this version's inventory (docs/input-space.md)");
    engine::InputClassCount& c = coverage.at(row->which);
    c.count = o.bounded_integer("count", 0, kMaxReportCount);  // summed by merge
    c.steps = o.bounded_integer("steps", 0, kMaxReportCount);
    if (row->values != engine::ValueSet::kClass) {
      if (c.count > 0) {
        c.min = o.integer("min");
        c.max = o.integer("max");
      }
      const nlohmann::json& hit = o.raw("edges_hit");
      if (!hit.is_array()) o.fail("edges_hit", -1, "wrong-type", "expected an array of edge names");
      for (size_t e = 0; e < hit.size(); ++e) {
        const int edge = hit[e].is_string() ? edge_by_name(hit[e].get<std::string>()) : -1;
        if (edge < 0) o.fail("edges_hit", static_cast<int64_t>(e), "wrong-type", "expected lo, lo+1, hi-1 or hi");
        c.edges[static_cast<size_t>(edge)] = true;
      }
      for (const char* derived : {"lo", "hi", "hi_per_input", "edges_missed"}) o.raw(derived);  // the table's
    }
    for (const char* derived : {"spec", "inputs", "reached"}) o.raw(derived);
    if (row->needs_declared_limits) o.raw("needs_declared_limits");
    o.reject_unknown_fields();
  }
  for (const char* derived : {"classes", "reached", "edges_missed"}) r.raw(derived);  // recomputed
  r.reject_unknown_fields();
  return coverage;
}

}  // namespace qsa::engine
