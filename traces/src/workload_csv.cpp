// A workload fitted to a user's CSV of requests (see workload_from_requests_csv in workloads.hpp).
#include <algorithm>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/limits.hpp"
#include "qsa/traces/workloads.hpp"

namespace qsa::traces {

namespace {

constexpr int64_t kMaxTokens = int64_t{1} << 24;

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> fields;
  size_t from = 0;
  while (true) {
    const size_t comma = line.find(',', from);
    fields.push_back(trim(line.substr(from, comma == std::string::npos ? std::string::npos : comma - from)));
    if (comma == std::string::npos) return fields;
    from = comma + 1;
  }
}

class CsvContext {
 public:
  explicit CsvContext(std::string path) : path_(std::move(path)) {}
  [[noreturn]] void fail(const std::string& column, int64_t line, const std::string& rule,
                         const std::string& what) const {
    const std::string where =
        path_ + (line >= 1 ? ":" + std::to_string(line) : "") + (column == "input" ? "" : ": column " + column);
    throw InputError(Error{column, line, rule, where + ": " + what});
  }

 private:
  std::string path_;
};

int64_t parse_tokens(const CsvContext& ctx, const std::string& text, const std::string& column, int64_t line) {
  if (text.empty() || text.size() > 12 || text.find_first_not_of("0123456789") != std::string::npos)
    ctx.fail(column, line, "not-an-integer", "expected a non-negative integer, got '" + text + "'");
  const int64_t value = std::stoll(text);
  if (value < 1 || value > kMaxTokens)
    ctx.fail(column, line, "out-of-range", "token count " + text + " is outside [1, 2^24]");
  return value;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// "YYYY-MM-DD HH:MM:SS[.fraction]" (Azure's format) to microseconds; fraction digits past 6 dropped.
int64_t parse_timestamp_us(const CsvContext& ctx, const std::string& text, int64_t line) {
  auto digits = [&](size_t at, size_t count, int64_t lo, int64_t hi) {
    int64_t v = 0;
    for (size_t i = at; i < at + count; ++i) {
      if (i >= text.size() || text[i] < '0' || text[i] > '9')
        ctx.fail("TIMESTAMP", line, "malformed-timestamp",
                 "expected YYYY-MM-DD HH:MM:SS[.fraction], got '" + text + "'");
      v = v * 10 + (text[i] - '0');
    }
    if (v < lo || v > hi) ctx.fail("TIMESTAMP", line, "malformed-timestamp", "field out of range in '" + text + "'");
    return v;
  };
  const bool separators = text.size() >= 19 && text[4] == '-' && text[7] == '-' &&
                          (text[10] == ' ' || text[10] == 'T') && text[13] == ':' && text[16] == ':' &&
                          (text.size() == 19 || text[19] == '.');
  if (!separators)
    ctx.fail("TIMESTAMP", line, "malformed-timestamp", "expected YYYY-MM-DD HH:MM:SS[.fraction], got '" + text + "'");
  const int64_t days = days_from_civil(digits(0, 4, 0, 9999), digits(5, 2, 1, 12), digits(8, 2, 1, 31));
  const int64_t seconds = days * 86400 + digits(11, 2, 0, 23) * 3600 + digits(14, 2, 0, 59) * 60 + digits(17, 2, 0, 60);
  int64_t micros = 0;
  const size_t fraction = text.size() > 20 ? text.size() - 20 : 0;
  if (text.size() > 19) {
    if (fraction == 0) ctx.fail("TIMESTAMP", line, "malformed-timestamp", "empty fraction in '" + text + "'");
    if (text.find_first_not_of("0123456789", 20) != std::string::npos)
      ctx.fail("TIMESTAMP", line, "malformed-timestamp", "non-digit in the fraction of '" + text + "'");
    const size_t used = fraction < 6 ? fraction : 6;
    micros = digits(20, used, 0, 999999);
    for (size_t i = used; i < 6; ++i) micros *= 10;
  }
  return seconds * 1000000 + micros;
}

std::optional<size_t> column_of(const std::vector<std::string>& header, const std::string& name) {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  return std::nullopt;
}

}  // namespace

Workload workload_from_requests_csv(const std::string& path) {
  return workload_from_requests_csv_text(read_input_text(path), path);
}

Workload workload_from_requests_csv_text(const std::string& text, const std::string& path) {
  const CsvContext ctx(path);
  std::istringstream file(text);
  std::string line;
  if (!std::getline(file, line)) ctx.fail("input", 1, "empty", "no header line");
  // Spreadsheets start a UTF-8 CSV with a byte-order mark: it is not part of the first column's name.
  if (line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
  const std::vector<std::string> header = split_fields(line);

  // Our own column names first, then Azure's.
  std::string prompt_name = "prompt_tokens", output_name = "output_tokens";
  if (!column_of(header, prompt_name) && column_of(header, "ContextTokens")) {
    prompt_name = "ContextTokens";
    output_name = "GeneratedTokens";
  }
  const auto prompt_col = column_of(header, prompt_name);
  const auto output_col = column_of(header, output_name);
  if (!prompt_col)
    ctx.fail(prompt_name, 1, "missing-column",
             "the header names no " + prompt_name +
                 " column (expected prompt_tokens,output_tokens or TIMESTAMP,ContextTokens,GeneratedTokens)");
  if (!output_col) ctx.fail(output_name, 1, "missing-column", "the header names no " + output_name + " column");
  const auto time_col = column_of(header, "TIMESTAMP");

  std::vector<int64_t> prompts, outputs;
  std::optional<int64_t> first_us, last_us;
  for (int64_t number = 2; std::getline(file, line); ++number) {
    if (trim(line).empty()) continue;
    const std::vector<std::string> fields = split_fields(line);
    if (fields.size() != header.size())
      ctx.fail("input", number, "wrong-field-count",
               std::to_string(fields.size()) + " fields where the header has " + std::to_string(header.size()));
    prompts.push_back(parse_tokens(ctx, fields[*prompt_col], prompt_name, number));
    outputs.push_back(parse_tokens(ctx, fields[*output_col], output_name, number));
    if (time_col) {
      const int64_t us = parse_timestamp_us(ctx, fields[*time_col], number);
      first_us = first_us ? std::min(*first_us, us) : us;
      last_us = last_us ? std::max(*last_us, us) : us;
    }
  }
  if (prompts.empty()) ctx.fail("input", 2, "empty", "no request lines after the header");

  Workload w = workload_by_name("default");
  w.name = "csv";
  w.description = "request lengths from " + path;
  w.geometries = {{4, 3, 16}, {4, 3, 64}};
  w.prompt_tokens = LengthTable::from_samples(prompts);
  w.output_tokens = LengthTable::from_samples(outputs);
  if (first_us && *last_us > *first_us) {
    const auto gaps = static_cast<int64_t>(prompts.size()) - 1;
    w.trace_requests_per_ks = std::max<int64_t>(1, gaps * 1000000000 / (*last_us - *first_us));
  }
  return w;
}

}  // namespace qsa::traces
