#include "output.hpp"

#include <unistd.h>

#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "qsa/traces/json_codec.hpp"
#include "qsa/traces/json_reader.hpp"

namespace qsa::cli {

std::string read_input(const std::string& path) {
  if (path.empty() || path == "-") {
    std::ostringstream os;
    os << std::cin.rdbuf();
    return os.str();
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) throw traces::InputError(Error{"input", -1, "unreadable", "cannot open " + path});
  return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

void print_json(const nlohmann::json& json) { std::cout << json.dump() << "\n" << std::flush; }

int report_error(const Error& error) {
  print_json(traces::error_to_json(error));
  std::cerr << "qsacheck: " << to_string(error) << "\n";
  return kExitUsage;
}

bool stderr_is_terminal() { return isatty(STDERR_FILENO) != 0; }

}  // namespace qsa::cli
