#include "qsa/traces/limits.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "qsa/traces/json_reader.hpp"

namespace qsa::traces {
namespace {

int64_t limit_from_environment(const char* variable, int64_t fallback) {
  const char* text = std::getenv(variable);
  if (text == nullptr || *text == '\0') return fallback;
  const std::string value(text);
  size_t digits = 0;
  while (digits < value.size() && value[digits] >= '0' && value[digits] <= '9') ++digits;
  const std::string suffix = value.substr(digits);
  int shift = 0;
  if (suffix == "K" || suffix == "KiB")
    shift = 10;
  else if (suffix == "M" || suffix == "MiB")
    shift = 20;
  else if (suffix == "G" || suffix == "GiB")
    shift = 30;
  else if (!suffix.empty())
    digits = 0;  // rejected below
  if (digits == 0 || digits > 15)
    throw InputError(Error{variable, -1, "bad-limit",
                           "'" + value + "' is not a byte count (a positive integer, optionally with K, M or G)"});
  const int64_t number = std::stoll(value.substr(0, digits));
  if (number < 1 || number > (int64_t{1} << (50 - shift)))
    throw InputError(Error{variable, -1, "bad-limit", "'" + value + "' is outside [1 byte, 1 PiB]"});
  return number << shift;
}

}  // namespace

int64_t max_input_bytes() { return limit_from_environment(kMaxInputBytesVariable, kDefaultMaxInputBytes); }
int64_t max_cache_bytes() { return limit_from_environment(kMaxCacheBytesVariable, kDefaultMaxCacheBytes); }

std::string bytes_text(int64_t bytes) {
  static const char* const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  double value = static_cast<double>(bytes);
  int unit = -1;
  while (value >= 1024 && unit < 5) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, value == std::floor(value) ? "%.0f %s" : "%.1f %s", value, units[unit]);
  return text;
}

std::string limit_hint(int64_t limit, const char* variable) {
  return "the limit is " + bytes_text(limit) + "; change it with the environment variable " + variable +
         "=BYTES (K, M, G suffixes allowed)";
}

std::string read_input_text(const std::string& path) {
  const bool standard_input = path.empty() || path == "-";
  const std::string name = standard_input ? "standard input" : path;
  const int64_t limit = max_input_bytes();
  auto too_large = [&](const std::string& size) {
    return InputError(
        Error{"input", -1, "too-large", name + " is " + size + "; " + limit_hint(limit, kMaxInputBytesVariable)});
  };
  std::string text;
  if (!standard_input) {
    struct stat info {};
    if (stat(path.c_str(), &info) != 0)
      throw InputError(Error{"input", -1, "unreadable", "cannot open " + path + ": " + std::strerror(errno)});
    if (S_ISDIR(info.st_mode)) throw InputError(Error{"input", -1, "not-a-file", path + " is a directory, not a file"});
    // A regular file's size is known: refuse it before reading a byte.
    if (S_ISREG(info.st_mode) && info.st_size > limit) throw too_large(bytes_text(info.st_size));
    if (S_ISREG(info.st_mode)) text.reserve(static_cast<size_t>(info.st_size));
  }
  std::unique_ptr<FILE, int (*)(FILE*)> file(standard_input ? stdin : std::fopen(path.c_str(), "rb"),
                                             standard_input ? [](FILE*) { return 0; } : &std::fclose);
  if (!file) throw InputError(Error{"input", -1, "unreadable", "cannot open " + path + ": " + std::strerror(errno)});
  char buffer[1 << 16];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) {
    if (static_cast<int64_t>(text.size() + n) > limit) throw too_large("more than " + bytes_text(limit));
    text.append(buffer, n);
  }
  if (std::ferror(file.get()))
    throw InputError(Error{"input", -1, "unreadable", "cannot read " + name + ": " + std::strerror(errno)});
  return text;
}

}  // namespace qsa::traces
