// Reading the lines of a request file (csv_fields.hpp).
#include "csv_fields.hpp"

#include <sstream>

#include "qsa/traces/json_reader.hpp"

namespace qsa::traces {

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

}  // namespace

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

void LineContext::fail(const std::string& field, int64_t line, const std::string& rule,
                       const std::string& what) const {
  const std::string where =
      path_ + (line >= 1 ? ":" + std::to_string(line) : "") + (field == "input" ? "" : ": " + word_ + " " + field);
  throw InputError(Error{field, line, rule, where + ": " + what});
}

int64_t parse_tokens(const LineContext& ctx, const std::string& text, const std::string& column, int64_t line) {
  if (text.empty() || text.size() > 12 || text.find_first_not_of("0123456789") != std::string::npos)
    ctx.fail(column, line, "not-an-integer", "expected a non-negative integer, got '" + text + "'");
  const int64_t value = std::stoll(text);
  if (value < 1 || value > kMaxRequestTokens)
    ctx.fail(column, line, "out-of-range", "token count " + text + " is outside [1, 2^24]");
  return value;
}

int64_t parse_timestamp_us(const LineContext& ctx, const std::string& text, int64_t line) {
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
  const int64_t year = digits(0, 4, 0, 9999), month = digits(5, 2, 1, 12), day = digits(8, 2, 1, 31);
  // The month's own length, leap years included: days_from_civil would carry Feb 30 into March 1
  // and the log would pass with a date it does not hold.
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  const int64_t month_days[12] = {31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (day > month_days[month - 1])
    ctx.fail("TIMESTAMP", line, "malformed-timestamp",
             "no such date in '" + text + "': month " + std::to_string(month) + " has " +
                 std::to_string(month_days[month - 1]) + " days");
  const int64_t days = days_from_civil(year, month, day);
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

CsvLines read_csv_lines(const std::string& text, const LineContext& ctx) {
  std::istringstream file(text);
  std::string line;
  if (!std::getline(file, line)) ctx.fail("input", 1, "empty", "no header line");
  // Spreadsheets start a UTF-8 CSV with a byte-order mark: it is not part of the first column's name.
  if (line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
  CsvLines csv;
  csv.header = split_fields(line);
  // A column named twice: readers differ on which one counts, so neither is taken (as a JSON key
  // given twice, docs/json-schema.md; the second was silently ignored).
  for (size_t i = 0; i < csv.header.size(); ++i)
    for (size_t k = 0; k < i; ++k)
      if (csv.header[i] == csv.header[k] && !csv.header[i].empty())
        ctx.fail(csv.header[i], 1, "duplicate-column",
                 "the header names " + csv.header[i] + " twice (columns " + std::to_string(k + 1) + " and " +
                     std::to_string(i + 1) + "); neither is taken");
  for (int64_t number = 2; std::getline(file, line); ++number) {
    if (trim(line).empty()) continue;
    std::vector<std::string> fields = split_fields(line);
    if (fields.size() != csv.header.size())
      ctx.fail("input", number, "wrong-field-count",
               std::to_string(fields.size()) + " fields where the header has " + std::to_string(csv.header.size()));
    csv.rows.emplace_back(number, std::move(fields));
  }
  return csv;
}

std::optional<size_t> column_of(const std::vector<std::string>& header, const std::string& name) {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  return std::nullopt;
}

}  // namespace qsa::traces
