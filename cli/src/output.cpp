#include "output.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "qsa/traces/json_codec.hpp"
#include "qsa/traces/limits.hpp"

namespace qsa::cli {

std::string read_input(const std::string& path) {
  if ((path.empty() || path == "-") && isatty(STDIN_FILENO) != 0)
    std::cerr << "qsacheck: reading the JSON input from standard input (end it with Ctrl-D; --input FILE reads a "
                 "file)\n";
  return traces::read_input_text(path);
}

std::string json_text(const nlohmann::json& json, int indent) {
  return json.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

void print_json(const nlohmann::json& json) { std::cout << json_text(json) << "\n" << std::flush; }

int report_error(const Error& error) {
  print_json(traces::error_to_json(error));
  std::cerr << "qsacheck: " << to_string(error) << "\n";
  return kExitUsage;
}

int finish_standard_output(int code) {
  std::cout.flush();
  errno = 0;
  const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
  const int why = errno;
  const bool close_failed = std::fclose(stdout) != 0;
  if (!failed && !close_failed) return code;
  std::cerr << "qsacheck: could not write standard output"
            << (why != 0 ? std::string(": ") + std::strerror(why) : std::string()) << "; "
            << (code == kExitOk ? "exit 3 instead of 0, the report did not reach its reader"
                                : "the exit code stays " + std::to_string(code))
            << "\n";
  return code == kExitOk ? kExitIncomplete : code;
}

bool stderr_is_terminal() { return isatty(STDERR_FILENO) != 0; }

}  // namespace qsa::cli
