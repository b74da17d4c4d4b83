#include "output.hpp"

#include <unistd.h>

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

bool stderr_is_terminal() { return isatty(STDERR_FILENO) != 0; }

}  // namespace qsa::cli
