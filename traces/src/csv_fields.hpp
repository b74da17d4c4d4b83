#pragma once
// Private to the scenario library: reading the lines of a request file (the CSV workload fit and
// the request logs): fields, token counts, Azure's timestamps, and errors that name the file, the
// line and the field.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace qsa::traces {

inline constexpr int64_t kMaxRequestTokens = int64_t{1} << 24;

/// Throws InputError {field, index = the 1-based line, rule} whose message reads
/// `path:line: column X: what` (`field X` with `word` = "field"; no column for field "input").
class LineContext {
 public:
  explicit LineContext(std::string path, std::string word = "column") : path_(std::move(path)), word_(std::move(word)) {}
  [[noreturn]] void fail(const std::string& field, int64_t line, const std::string& rule, const std::string& what) const;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::string word_;
};

/// A CSV's header and its non-blank lines, each with as many fields as the header (else
/// {input, line, wrong-field-count}); a byte-order mark before the header is skipped, no header
/// is {input, 1, empty}, a column named twice {that name, 1, duplicate-column}.
struct CsvLines {
  std::vector<std::string> header;
  std::vector<std::pair<int64_t, std::vector<std::string>>> rows;  // (1-based line, fields)
};
CsvLines read_csv_lines(const std::string& text, const LineContext& ctx);

std::string trim(const std::string& s);
/// Comma-separated fields, each trimmed of blanks and a carriage return.
std::vector<std::string> split_fields(const std::string& line);
std::optional<size_t> column_of(const std::vector<std::string>& header, const std::string& name);

/// A token count as written in a CSV field: digits only, in [1, 2^24] (rules not-an-integer,
/// out-of-range).
int64_t parse_tokens(const LineContext& ctx, const std::string& text, const std::string& column, int64_t line);

/// "YYYY-MM-DD HH:MM:SS[.fraction]" (Azure's format, a T allowed for the blank) to microseconds
/// since 1970; fraction digits past 6 dropped. Rule malformed-timestamp, column TIMESTAMP, also for
/// a day past its month's end (Feb 30, Feb 29 outside a leap year).
int64_t parse_timestamp_us(const LineContext& ctx, const std::string& text, int64_t line);

}  // namespace qsa::traces
