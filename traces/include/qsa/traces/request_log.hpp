#pragma once
// A request log as a serving system recorded it: each request's arrival time, prompt length,
// output length and, where the log has them, the hashes of its prompt blocks. Two forms are read
// (docs/workloads.md "Request logs"):
//   - JSONL, the form public serving traces use, one object a line:
//     {"timestamp": 27482, "input_length": 6955, "output_length": 52, "hash_ids": [46, 47, ...]}
//     timestamp in milliseconds; hash_ids optional, one hash per block of `hash_block_tokens`
//     prompt tokens (the last block may be partial), so exactly ceil(input_length / block) of them;
//   - Azure's CSV (the 2023 LLM inference traces): a header `TIMESTAMP,ContextTokens,GeneratedTokens`
//     (any order, other columns ignored), timestamps `YYYY-MM-DD HH:MM:SS[.fraction]`, no hashes.
// Errors throw InputError {field = the JSON field or CSV column ("input" for the line as a whole),
// index = the 1-based line, rule} whose message reads `path:line: field X: what` (rules below).

#include <cstdint>
#include <string>
#include <vector>

namespace qsa::traces {

enum class RequestLogFormat { kJsonl, kAzureCsv };

/// "jsonl" / "azure-csv"; parse_request_log_format throws InputError {field "--requests-format",
/// rule "unknown-format"} for anything else.
const char* to_string(RequestLogFormat format);
RequestLogFormat parse_request_log_format(const std::string& text);
/// The format a file name suggests: azure-csv for a name ending in .csv, jsonl otherwise.
RequestLogFormat request_log_format_of(const std::string& path);

inline constexpr int64_t kDefaultHashBlockTokens = 512;

struct LoggedRequest {
  int64_t line = 0;           // 1-based line of the file
  int64_t arrival_ms = 0;     // as logged (JSONL: the timestamp; CSV: milliseconds since 1970)
  int64_t prompt_tokens = 0;  // [1, 2^24]
  int64_t output_tokens = 0;  // [1, 2^24]
  std::vector<int64_t> hash_ids;  // [ceil(prompt_tokens / hash_block_tokens)] or empty (none logged)
};

struct RequestLog {
  std::string path;
  RequestLogFormat format = RequestLogFormat::kJsonl;
  int64_t hash_block_tokens = kDefaultHashBlockTokens;  // prompt tokens per hash
  std::vector<LoggedRequest> requests;                  // in file order; arrival_ms non-decreasing
};

/// Reads and parses a log file (at most QSA_MAX_INPUT_BYTES). Rules: unreadable, not-a-file,
/// too-large (the input limit), empty (no request), malformed-json, wrong-type, missing,
/// unknown-field, out-of-range (a length outside [1, 2^24], a negative timestamp),
/// wrong-length (hash_ids not one per hash block), malformed-timestamp, not-monotone (an arrival
/// before the previous line's), missing-column, wrong-field-count, not-an-integer.
RequestLog read_request_log(const std::string& path, RequestLogFormat format,
                            int64_t hash_block_tokens = kDefaultHashBlockTokens);
/// The same from the text (`path` only names it in errors); the unit tests' entry point.
RequestLog parse_request_log(const std::string& text, const std::string& path, RequestLogFormat format,
                             int64_t hash_block_tokens = kDefaultHashBlockTokens);

/// What a log (or a window of it) holds, for the report: tokens as logged, before any scaling.
struct RequestLogFigures {
  int64_t requests = 0;
  int64_t span_ms = 0;           // last arrival - first
  double requests_per_s = 0;     // (requests - 1) / span, 0 for a span of 0
  int64_t prompt_p50 = 0, prompt_p90 = 0, prompt_p99 = 0, prompt_max = 0;  // order statistics sorted[floor(q (n - 1))]
  int64_t output_p50 = 0, output_p90 = 0, output_p99 = 0, output_max = 0;
  int64_t with_hashes = 0;       // requests that log hash_ids
  int64_t prefix_requests = 0;   // requests whose first whole hash block an earlier request of the window logged
  int64_t prefix_blocks = 0;     // whole hash blocks equal, from the start, to those of an earlier request
  int64_t hash_blocks = 0;       // whole hash blocks logged
};

RequestLogFigures figures_of(const std::vector<LoggedRequest>& requests, int64_t hash_block_tokens);

/// Number of leading whole hash blocks two requests share: i < both counts with equal hashes at
/// 0..i-1, counting a block only where it is whole in both prompts ((i + 1) * block <= length).
int64_t shared_whole_hash_blocks(const LoggedRequest& a, const LoggedRequest& b, int64_t hash_block_tokens);

}  // namespace qsa::traces
