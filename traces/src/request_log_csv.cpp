// Azure's CSV form of a request log (request_log.hpp): TIMESTAMP,ContextTokens,GeneratedTokens.
#include <sstream>

#include "request_log_forms.hpp"

namespace qsa::traces {

std::vector<LoggedRequest> parse_azure_csv_requests(const std::string& text, const LineContext& ctx) {
  std::istringstream file(text);
  std::string line;
  if (!std::getline(file, line)) ctx.fail("input", 1, "empty", "no header line");
  if (line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);  // a spreadsheet's byte-order mark
  const std::vector<std::string> header = split_fields(line);
  size_t columns[3] = {};
  const char* names[3] = {"TIMESTAMP", "ContextTokens", "GeneratedTokens"};
  for (size_t i = 0; i < 3; ++i) {
    const auto column = column_of(header, names[i]);
    if (!column)
      ctx.fail(names[i], 1, "missing-column",
               std::string("the header names no ") + names[i] + " column (expected TIMESTAMP,ContextTokens,GeneratedTokens)");
    columns[i] = *column;
  }
  std::vector<LoggedRequest> requests;
  for (int64_t number = 2; std::getline(file, line); ++number) {
    if (trim(line).empty()) continue;
    const std::vector<std::string> fields = split_fields(line);
    if (fields.size() != header.size())
      ctx.fail("input", number, "wrong-field-count",
               std::to_string(fields.size()) + " fields where the header has " + std::to_string(header.size()));
    LoggedRequest q;
    q.line = number;
    q.arrival_ms = parse_timestamp_us(ctx, fields[columns[0]], number) / 1000;
    q.prompt_tokens = parse_tokens(ctx, fields[columns[1]], names[1], number);
    q.output_tokens = parse_tokens(ctx, fields[columns[2]], names[2], number);
    requests.push_back(std::move(q));
  }
  return requests;
}

}  // namespace qsa::traces
