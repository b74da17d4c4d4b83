// fuzz_trace_reader: bytes -> traces::read_scenario. The reader either throws InputError (with a
// field and a rule), or returns a scenario that
// - writes back to text that reads back to an equal scenario (operator== of scenario_file.hpp,
//   digests included), and writing that again gives the same text;
// - means what the input meant: every input line, parsed as JSON with the format's defaults filled
//   in (absent family -1, absent lists empty, absent padding 0), equals the written line (eps as
//   the float it is stored in).
// Any other exception, a crash, a hang or a large allocation is a finding (the scenario runner is
// not called: configuration numbers must not cost memory while reading).

#include <cstdint>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/scenario_file.hpp"

namespace {

using namespace qsa;
using fuzz::finding;
using nlohmann::json;
constexpr const char* kTarget = "fuzz_trace_reader";

std::string excerpt(const std::string& text) { return text.size() > 3000 ? text.substr(0, 3000) + "..." : text; }

// The lines the reader parses (it skips blank ones).
std::vector<json> json_lines(const std::string& text) {
  std::vector<json> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos) lines.push_back(json::parse(line));
  return lines;
}

void fill_default(json& object, const char* field, const json& value) {
  if (!object.contains(field) || object[field].is_null()) object[field] = value;
}

// A step line with the format's defaults written out.
json normalized_step(json step) {
  fill_default(step, "padded_requests", 0);
  fill_default(step, "padding_tokens", 0);
  fill_default(step, "finished", json::array());
  fill_default(step, "preempted", json::array());
  for (json& chunk : step["chunks"]) {
    fill_default(chunk, "family", -1);
    fill_default(chunk, "negative_common_slots", json::array());
    fill_default(chunk, "prefilled", false);
  }
  return step;
}

// Input and written header configs agree, eps compared as the float the reader stores.
bool same_config(json in, json out) {
  const auto eps_in = static_cast<float>(in["eps"].get<double>());
  const auto eps_out = static_cast<float>(out["eps"].get<double>());
  in.erase("eps");
  out.erase("eps");
  return eps_in == eps_out && in == out;
}

void check_meaning(const std::string& input, const std::string& written) {
  const std::vector<json> before = json_lines(input);
  const std::vector<json> after = json_lines(written);
  if (before.size() != after.size())
    finding(kTarget, "meaning",
            "the input has " + std::to_string(before.size()) + " lines, the written file " +
                std::to_string(after.size()) + "\n  input:\n" + excerpt(input) + "\n  written:\n" + excerpt(written));
  for (size_t i = 0; i < before.size(); ++i) {
    const bool same = i == 0
                          ? before[0]["format"] == after[0]["format"] && before[0]["version"] == after[0]["version"] &&
                                same_config(before[0]["config"], after[0]["config"])
                          : normalized_step(before[i]) == normalized_step(after[i]);
    if (!same)
      finding(kTarget, "meaning",
              "line " + std::to_string(i + 1) + " of the non-blank lines reads as something else:\n  input:   " +
                  excerpt(before[i].dump()) + "\n  written: " + excerpt(after[i].dump()));
  }
}

void run(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  traces::ScenarioFile file;
  try {
    std::istringstream in(input);
    file = traces::read_scenario(in);
  } catch (const InputError& e) {
    if (e.error().field.empty() || e.error().rule.empty())
      finding(kTarget, "error", "an InputError without a field or a rule: " + std::string(e.what()));
    return;  // a clear error: the reader did its job
  }

  std::ostringstream first;
  traces::write_scenario(first, file.scenario, file.digests);
  traces::ScenarioFile back;
  try {
    std::istringstream in(first.str());
    back = traces::read_scenario(in);
  } catch (const InputError& e) {
    finding(kTarget, "round-trip",
            std::string("the written scenario does not read back: ") + e.what() + "\n  input:\n" + excerpt(input) +
                "\n  written:\n" + excerpt(first.str()));
  }
  bool equal = back.scenario.config == file.scenario.config &&
               back.scenario.steps.size() == file.scenario.steps.size() && back.digests == file.digests;
  for (size_t i = 0; equal && i < back.scenario.steps.size(); ++i)
    equal = back.scenario.steps[i] == file.scenario.steps[i];
  if (!equal)
    finding(kTarget, "round-trip",
            "the scenario read back differs\n  input:\n" + excerpt(input) + "\n  written:\n" + excerpt(first.str()));
  std::ostringstream second;
  traces::write_scenario(second, back.scenario, back.digests);
  if (second.str() != first.str())
    finding(
        kTarget, "round-trip",
        "writing is not a fixed point\n  first:\n" + excerpt(first.str()) + "\n  second:\n" + excerpt(second.str()));
  check_meaning(input, first.str());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::run_input(kTarget, [&] { run(data, size); });
  return 0;
}
