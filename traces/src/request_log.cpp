// Request logs (request_log.hpp): the format, what both forms share, and a log's figures.
#include "qsa/traces/request_log.hpp"

#include <algorithm>
#include <map>

#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/limits.hpp"
#include "request_log_forms.hpp"

namespace qsa::traces {

const char* to_string(RequestLogFormat format) {
  return format == RequestLogFormat::kAzureCsv ? "azure-csv" : "jsonl";
}

RequestLogFormat parse_request_log_format(const std::string& text) {
  if (text == "jsonl") return RequestLogFormat::kJsonl;
  if (text == "azure-csv") return RequestLogFormat::kAzureCsv;
  throw InputError(Error{"--requests-format", -1, "unknown-format",
                         "'" + text.substr(0, 40) + "' is not a request log format (jsonl or azure-csv)"});
}

RequestLogFormat request_log_format_of(const std::string& path) {
  const bool csv = path.size() >= 4 && path.compare(path.size() - 4, 4, ".csv") == 0;
  return csv ? RequestLogFormat::kAzureCsv : RequestLogFormat::kJsonl;
}

RequestLog read_request_log(const std::string& path, RequestLogFormat format, int64_t hash_block_tokens) {
  return parse_request_log(read_input_text(path), path, format, hash_block_tokens);
}

RequestLog parse_request_log(const std::string& text, const std::string& path, RequestLogFormat format,
                             int64_t hash_block_tokens) {
  RequestLog log;
  log.path = path;
  log.format = format;
  log.hash_block_tokens = hash_block_tokens;
  const bool csv = format == RequestLogFormat::kAzureCsv;
  const LineContext ctx(path, csv ? "column" : "field");
  log.requests = csv ? parse_azure_csv_requests(text, ctx) : parse_jsonl_requests(text, ctx, hash_block_tokens);
  if (log.requests.empty()) ctx.fail("input", csv ? 2 : 1, "empty", "no request in the log");
  // Arrivals drive the scheduler in file order: a request logged before an earlier one is an error,
  // not something to sort silently.
  for (size_t i = 1; i < log.requests.size(); ++i)
    if (log.requests[i].arrival_ms < log.requests[i - 1].arrival_ms)
      ctx.fail(csv ? "TIMESTAMP" : "timestamp", log.requests[i].line, "not-monotone",
               "arrives " + std::to_string(log.requests[i - 1].arrival_ms - log.requests[i].arrival_ms) +
                   " ms before the request of line " + std::to_string(log.requests[i - 1].line) +
                   " (a log lists requests in arrival order)");
  return log;
}

int64_t shared_whole_hash_blocks(const LoggedRequest& a, const LoggedRequest& b, int64_t hash_block_tokens) {
  const int64_t whole = std::min(a.prompt_tokens, b.prompt_tokens) / hash_block_tokens;
  const auto n = static_cast<size_t>(std::min<int64_t>(
      whole, static_cast<int64_t>(std::min(a.hash_ids.size(), b.hash_ids.size()))));
  size_t i = 0;
  while (i < n && a.hash_ids[i] == b.hash_ids[i]) ++i;
  return static_cast<int64_t>(i);
}

namespace {

int64_t order_statistic(const std::vector<int64_t>& sorted, int64_t per_mille) {
  return sorted[static_cast<size_t>(per_mille * static_cast<int64_t>(sorted.size() - 1) / 1000)];
}

}  // namespace

RequestLogFigures figures_of(const std::vector<LoggedRequest>& requests, int64_t hash_block_tokens) {
  RequestLogFigures f;
  f.requests = static_cast<int64_t>(requests.size());
  if (requests.empty()) return f;
  f.span_ms = requests.back().arrival_ms - requests.front().arrival_ms;
  if (f.span_ms > 0) f.requests_per_s = static_cast<double>(f.requests - 1) * 1000.0 / static_cast<double>(f.span_ms);
  std::vector<int64_t> prompts, outputs;
  for (const LoggedRequest& q : requests) {
    prompts.push_back(q.prompt_tokens);
    outputs.push_back(q.output_tokens);
  }
  std::sort(prompts.begin(), prompts.end());
  std::sort(outputs.begin(), outputs.end());
  f.prompt_p50 = order_statistic(prompts, 500);
  f.prompt_p90 = order_statistic(prompts, 900);
  f.prompt_p99 = order_statistic(prompts, 990);
  f.prompt_max = prompts.back();
  f.output_p50 = order_statistic(outputs, 500);
  f.output_p90 = order_statistic(outputs, 900);
  f.output_p99 = order_statistic(outputs, 990);
  f.output_max = outputs.back();
  // A trie of the whole hash blocks seen so far: node 0 is the empty prefix.
  std::map<std::pair<int64_t, int64_t>, int64_t> child;
  for (const LoggedRequest& q : requests) {
    if (q.hash_ids.empty()) continue;
    ++f.with_hashes;
    const int64_t whole = std::min<int64_t>(q.prompt_tokens / hash_block_tokens, static_cast<int64_t>(q.hash_ids.size()));
    f.hash_blocks += whole;
    int64_t node = 0;
    bool seen = true;
    for (int64_t i = 0; i < whole; ++i) {
      const auto key = std::make_pair(node, q.hash_ids[static_cast<size_t>(i)]);
      const auto it = child.find(key);
      if (seen && it != child.end()) {
        ++f.prefix_blocks;
        if (i == 0) ++f.prefix_requests;
        node = it->second;
        continue;
      }
      seen = false;
      const int64_t next = static_cast<int64_t>(child.size()) + 1;
      child.emplace(key, next);
      node = next;
    }
  }
  return f;
}

}  // namespace qsa::traces
