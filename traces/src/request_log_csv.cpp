// Azure's CSV form of a request log (request_log.hpp): TIMESTAMP,ContextTokens,GeneratedTokens.
#include "request_log_forms.hpp"

namespace qsa::traces {

std::vector<LoggedRequest> parse_azure_csv_requests(const std::string& text, const LineContext& ctx) {
  const CsvLines csv = read_csv_lines(text, ctx);
  size_t columns[3] = {};
  const char* names[3] = {"TIMESTAMP", "ContextTokens", "GeneratedTokens"};
  for (size_t i = 0; i < 3; ++i) {
    const auto column = column_of(csv.header, names[i]);
    if (!column)
      ctx.fail(names[i], 1, "missing-column",
               std::string("the header names no ") + names[i] + " column (expected TIMESTAMP,ContextTokens,GeneratedTokens)");
    columns[i] = *column;
  }
  std::vector<LoggedRequest> requests;
  for (const auto& [number, fields] : csv.rows) {
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
