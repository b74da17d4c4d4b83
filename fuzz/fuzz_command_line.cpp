// fuzz_command_line: bytes -> an argument vector (one argument per line, at most 24) ->
// qsacheck's run_command_line in parse-only mode, which validates every argument (numbers, names,
// output paths) and stops before any work, input read or file write. It must return 0 (valid) or
// 2; on 2, what it printed on stdout must be exactly one JSON line {"status": "error"} with a
// non-empty field and rule; on 0 it must print nothing. Any other exit code or exception, a crash
// or a hang is a finding.

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "command_line.hpp"
#include "fuzz_support.hpp"

namespace {

using qsa::fuzz::finding;
constexpr const char* kTarget = "fuzz_command_line";
constexpr size_t kMaxArguments = 24;

std::vector<std::string> arguments_of(const std::string& text) {
  std::vector<std::string> args = {"qsacheck"};
  std::istringstream in(text);
  std::string line;
  while (args.size() <= kMaxArguments && std::getline(in, line)) args.push_back(line);
  return args;
}

std::string shown(const std::vector<std::string>& args) {
  std::string out;
  for (const std::string& a : args)
    out += (out.empty() ? "" : " ") + nlohmann::json(a).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A fuzzed --backend worker:COMMAND must not run a program; it is refused (exit 2) instead.
  static const bool no_workers = setenv("QSA_NO_WORKERS", "1", 1) == 0;
  (void)no_workers;
  const std::vector<std::string> args = arguments_of(std::string(reinterpret_cast<const char*>(data), size));
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  qsa::fuzz::run_input(kTarget, [&] {
    std::ostringstream out, err;
    std::streambuf* const saved_out = std::cout.rdbuf(out.rdbuf());
    std::streambuf* const saved_err = std::cerr.rdbuf(err.rdbuf());
    const int code = qsa::cli::run_command_line(static_cast<int>(argv.size()), argv.data(), /*parse_only=*/true);
    std::cout.rdbuf(saved_out);
    std::cerr.rdbuf(saved_err);
    const std::string printed = out.str();
    if (code == 0) {
      if (!printed.empty()) finding(kTarget, "printed-on-success", shown(args) + " printed: " + printed);
      return;
    }
    if (code != 2) finding(kTarget, "exit-code", shown(args) + " returned " + std::to_string(code));
    if (printed.empty() || printed.find('\n') != printed.size() - 1)
      finding(kTarget, "one-json-line", shown(args) + " printed: " + printed);
    const nlohmann::json error = nlohmann::json::parse(printed, nullptr, /*allow_exceptions=*/false);
    if (!error.is_object() || error.value("status", "") != "error" || error.value("field", "").empty() ||
        error.value("rule", "").empty())
      finding(kTarget, "error-shape", shown(args) + " printed: " + printed);
    if (err.str().empty()) finding(kTarget, "stderr-empty", shown(args) + " said nothing on stderr");
  });
  return 0;
}
