#include "qsa/engine/float_statistics.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "qsa/engine/float_comparator.hpp"
#include "qsa/traces/json_reader.hpp"

namespace qsa::engine {
namespace {

// The upper bounds of the bins below ">N": 0, 1, 2, 4, 8, ... while below N, then N.
std::vector<int64_t> bin_bounds(int64_t n) {
  std::vector<int64_t> bounds{0};
  for (int64_t b = 1; b < n; b *= 2) bounds.push_back(b);
  if (n > 0) bounds.push_back(n);
  return bounds;
}

std::string element_text(const uint8_t* p, int element_bytes) {
  const unsigned bits = element_bytes == 1 ? p[0] : static_cast<unsigned>(p[0] | p[1] << 8);
  char buf[64];
  std::snprintf(buf, sizeof buf, element_bytes == 1 ? "0x%02x (%.9g)" : "0x%04x (%.9g)", bits,
                element_value(p, element_bytes));
  return buf;
}

}  // namespace

FloatStatistics::FloatStatistics(int64_t n) : ulps(n), histogram(row_ulp_bin_labels(n).size(), 0) {}

std::vector<std::string> row_ulp_bin_labels(int64_t n) {
  const std::vector<int64_t> bounds = bin_bounds(n);
  std::vector<std::string> labels;
  for (size_t i = 0; i < bounds.size(); ++i) {
    const int64_t low = i == 0 ? 0 : bounds[i - 1] + 1;
    labels.push_back(low == bounds[i] ? std::to_string(low) : std::to_string(low) + "-" + std::to_string(bounds[i]));
  }
  labels.push_back(">" + std::to_string(n));
  return labels;
}

size_t row_ulp_bin(double distance, int64_t n) {
  const std::vector<int64_t> bounds = bin_bounds(n);
  const double whole = std::ceil(distance);
  for (size_t i = 0; i < bounds.size(); ++i)
    if (whole <= static_cast<double>(bounds[i])) return i;
  return bounds.size();
}

void tally_row(FloatStatistics& stats, const uint8_t* expected, const uint8_t* actual, int64_t width, int element_bytes,
               const FloatWorst& where) {
  // A bit-identical row (the common case) is all distance 0; the first row still names the worst.
  if (stats.worst.distance >= 0 && std::memcmp(expected, actual, static_cast<size_t>(width * element_bytes)) == 0) {
    stats.elements += width;
    stats.identical += width;
    stats.histogram[0] += width;
    return;
  }
  const std::vector<double> d = row_ulp_distances(expected, actual, width, element_bytes);
  for (int64_t e = 0; e < width; ++e) {
    const uint8_t* want = expected + e * element_bytes;
    const uint8_t* got = actual + e * element_bytes;
    ++stats.elements;
    if (std::memcmp(want, got, static_cast<size_t>(element_bytes)) == 0) ++stats.identical;
    if (d[e] > static_cast<double>(stats.ulps)) ++stats.beyond;
    ++stats.histogram[row_ulp_bin(d[e], stats.ulps)];
    if (d[e] > stats.worst.distance) {
      stats.worst = where;
      stats.worst.distance = d[e];
      stats.worst.element = e;
      stats.worst.expected = element_text(want, element_bytes);
      stats.worst.actual = element_text(got, element_bytes);
    }
  }
}

std::string FloatStatistics::to_string(const std::string& output) const {
  std::ostringstream os;
  if (elements == 0) return output + ": no element compared with the reference";
  char share[32];
  std::snprintf(share, sizeof share, "%.3f%%", 100.0 * identical_share());
  os << output << ": " << share << " bit-identical (" << identical << " of " << elements
     << " elements), row-ulp histogram";
  const std::vector<std::string> labels = row_ulp_bin_labels(ulps);
  for (size_t i = 0; i < labels.size(); ++i) os << " " << labels[i] << ":" << histogram[i];
  os << ", N = " << ulps;
  if (worst.distance > 0) {
    os << "; worst " << worst.distance << " row-ulps at request " << worst.request << " position " << worst.position;
    if (worst.head >= 0) os << " head " << worst.head;
    os << " element " << worst.element << ": expected " << worst.expected << ", actual " << worst.actual;
  }
  return os.str();
}

nlohmann::json to_json(const FloatStatistics& s) {
  nlohmann::json histogram = nlohmann::json::object();
  const std::vector<std::string> labels = row_ulp_bin_labels(s.ulps);
  for (size_t i = 0; i < labels.size(); ++i) histogram[labels[i]] = s.histogram[i];
  nlohmann::json j = {{"ulps", s.ulps},
                      {"elements", s.elements},
                      {"bit_identical", s.identical},
                      {"bit_identical_share", s.identical_share()},
                      {"beyond_tolerance", s.beyond},
                      {"row_ulp_histogram", histogram}};
  if (s.worst.distance >= 0)
    j["worst"] = {{"distance_row_ulps",
                   std::isfinite(s.worst.distance) ? nlohmann::json(s.worst.distance) : nlohmann::json("inf")},
                  {"request", s.worst.request},
                  {"position", s.worst.position},
                  {"head", s.worst.head},
                  {"row", s.worst.row},
                  {"element", s.worst.element},
                  {"expected", s.worst.expected},
                  {"actual", s.worst.actual}};
  return j;
}

FloatStatistics float_statistics_from_json(const nlohmann::json& json, const std::string& context) {
  traces::JsonObjectReader r(json, context);
  FloatStatistics s(r.integer("ulps"));
  s.elements = r.integer("elements");
  s.identical = r.integer("bit_identical");
  r.number("bit_identical_share");  // derived from the two above
  s.beyond = r.integer("beyond_tolerance");
  const nlohmann::json& histogram = r.raw("row_ulp_histogram");
  const std::vector<std::string> labels = row_ulp_bin_labels(s.ulps);
  for (size_t i = 0; i < labels.size(); ++i) {
    if (!histogram.is_object() || !histogram.contains(labels[i]))
      r.fail("row_ulp_histogram", static_cast<int64_t>(i), "missing", "no bin \"" + labels[i] + "\"");
    s.histogram[i] = traces::json_integer(histogram[labels[i]], context + "row_ulp_histogram." + labels[i], -1);
  }
  if (const nlohmann::json* worst = r.optional_raw("worst")) {
    traces::JsonObjectReader w(*worst, context + "worst.");
    const nlohmann::json& distance = w.raw("distance_row_ulps");
    if (distance == "inf")
      s.worst.distance = INFINITY;
    else if (distance.is_number())
      s.worst.distance = distance.get<double>();
    else
      w.fail("distance_row_ulps", -1, "wrong-type", "a number or \"inf\"");
    s.worst.request = w.integer("request");
    s.worst.position = w.integer("position");
    s.worst.head = w.integer("head");
    s.worst.row = w.integer("row");
    s.worst.element = w.integer("element");
    s.worst.expected = w.string("expected");
    s.worst.actual = w.string("actual");
    w.reject_unknown_fields();
  }
  r.reject_unknown_fields();
  return s;
}

bool absorb(FloatStatistics& into, const FloatStatistics& from) {
  into.elements += from.elements;
  into.identical += from.identical;
  into.beyond += from.beyond;
  for (size_t i = 0; i < into.histogram.size() && i < from.histogram.size(); ++i)
    into.histogram[i] += from.histogram[i];
  if (from.worst.distance > into.worst.distance) {
    into.worst = from.worst;
    return true;
  }
  return false;
}

}  // namespace qsa::engine
