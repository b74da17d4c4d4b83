#include "qsa/records/benchmark_name.hpp"

#include <array>
#include <sstream>

namespace qsa::records {
namespace {

std::vector<std::string> split_parts(const std::string& text) {
  std::vector<std::string> parts;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, '/');) parts.push_back(part);
  return parts;
}

// Google Benchmark's own name components (benchmark_register.cc: the run options it appends).
bool is_run_option(const std::string& part) {
  static const std::array<const char*, 8> options{"iterations:", "repeats:",  "min_time:",   "min_warmup_time:",
                                                  "threads:",    "real_time", "manual_time", "process_time"};
  for (const char* option : options) {
    const std::string o(option);
    if (o.back() == ':' ? part.rfind(o, 0) == 0 : part == o) return true;
  }
  return false;
}

}  // namespace

std::string benchmark_key(const std::string& run_name) {
  std::string key;
  for (const std::string& part : split_parts(run_name)) {
    if (is_run_option(part)) continue;
    if (!key.empty()) key += '/';
    key += part;
  }
  return key;
}

std::string BenchmarkName::arg(const std::string& name) const {
  for (const auto& [arg_name, value] : args)
    if (arg_name == name) return value;
  return "";
}

BenchmarkName split_benchmark_name(const std::string& key) {
  BenchmarkName name;
  const std::vector<std::string> parts = split_parts(key);
  for (size_t i = 0; i < parts.size(); ++i) {
    const auto colon = parts[i].find(':');
    if (i == 0) {
      name.family = parts[i];
    } else if (i == 1 && colon == std::string::npos) {
      name.backend = parts[i];
    } else if (colon == std::string::npos) {
      name.args.emplace_back("", parts[i]);
    } else {
      name.args.emplace_back(parts[i].substr(0, colon), parts[i].substr(colon + 1));
    }
  }
  return name;
}

}  // namespace qsa::records
