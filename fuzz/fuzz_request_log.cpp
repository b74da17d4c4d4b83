// fuzz_request_log: bytes -> traces::parse_request_log (the first byte picks the form and the
// hash block, the rest is the log's text), then the log's figures and the replay workload
// (workload_from_request_log, resolve_workload: the cache budget; nothing is allocated). The
// reader either throws InputError naming a field, a rule, a line within the input and the file,
// or returns requests as logged: lengths in [1, 2^24], arrivals in order, lines increasing,
// hash lists of one hash per block. The figures stay within the log; every arrival of the
// replay maps to a step in order. Any other exception, a crash, a hang or a large allocation is a
// finding.

#include <cstdint>
#include <string>

#include "fuzz_support.hpp"
#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/request_replay.hpp"

namespace {

using namespace qsa;
using fuzz::finding;
using fuzz::line_count;
constexpr const char* kTarget = "fuzz_request_log";

void check_error(const Error& error, const std::string& text) {
  if (error.field.empty() || error.rule.empty() || error.message.empty())
    finding(kTarget, "error-shape", "an error without field, rule or message: " + to_string(error));
  if (error.index > line_count(text) + 1)
    finding(kTarget, "error-index",
            "line " + std::to_string(error.index) + " of a " + std::to_string(line_count(text)) +
                "-line input: " + to_string(error));
}

void check_log(const traces::RequestLog& log, const std::string& text) {
  if (log.requests.empty()) finding(kTarget, "empty", "a log without requests was accepted");
  int64_t previous_line = 0, previous_ms = INT64_MIN;  // a CSV date before 1970 is negative
  for (const traces::LoggedRequest& q : log.requests) {
    const std::string at = "line " + std::to_string(q.line) + ": ";
    if (q.line <= previous_line || q.line > line_count(text)) finding(kTarget, "line", at + "out of order or past the input");
    if (q.arrival_ms < previous_ms) finding(kTarget, "order", at + "arrives before the previous request");
    for (int64_t tokens : {q.prompt_tokens, q.output_tokens})
      if (tokens < 1 || tokens > (int64_t{1} << 24)) finding(kTarget, "token-range", at + std::to_string(tokens));
    const int64_t blocks = (q.prompt_tokens + log.hash_block_tokens - 1) / log.hash_block_tokens;
    if (!q.hash_ids.empty() && static_cast<int64_t>(q.hash_ids.size()) != blocks)
      finding(kTarget, "hash-count", at + std::to_string(q.hash_ids.size()) + " hashes, " + std::to_string(blocks) +
                                         " blocks");
    previous_line = q.line;
    previous_ms = q.arrival_ms;
  }
  const traces::RequestLogFigures f = traces::figures_of(log.requests, log.hash_block_tokens);
  if (f.requests != static_cast<int64_t>(log.requests.size()) || f.prefix_requests > f.with_hashes ||
      f.with_hashes > f.requests || f.prefix_blocks > f.hash_blocks || f.prompt_p50 > f.prompt_p99 ||
      f.prompt_p99 > f.prompt_max || f.output_p50 > f.output_max || f.span_ms < 0)
    finding(kTarget, "figures", "figures outside the log");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto format = (data[0] & 1) != 0 ? traces::RequestLogFormat::kAzureCsv : traces::RequestLogFormat::kJsonl;
  const int64_t blocks[4] = {512, 64, 16, 1};
  const int64_t block = blocks[(data[0] >> 1) & 3];
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  fuzz::run_input(kTarget, [&] {
    traces::RequestLog log;
    try {
      log = traces::parse_request_log(text, "fuzz.log", format, block);
    } catch (const InputError& e) {
      check_error(e.error(), text);
      if (e.error().message.rfind("fuzz.log", 0) != 0)
        finding(kTarget, "error-file", "the message does not name the file: " + to_string(e.error()));
      return;
    }
    check_log(log, text);
    traces::ReplayOptions options;
    options.length_scale = (data[0] >> 3) & 1 ? block : 1;  // divides the hash block
    traces::Workload workload;
    try {
      workload = traces::workload_from_request_log(log, options);
    } catch (const InputError& e) {  // hashes of fewer positions than any B: refused
      check_error(e.error(), text);
      if (e.error().rule != "hash-block-below-B")
        finding(kTarget, "replay-refused", "a scale that divides the hash block was refused: " + to_string(e.error()));
      return;
    }
    int64_t step = 0;
    for (const traces::LoggedArrival& a : workload.schedule->arrivals) {
      if (a.step < step) finding(kTarget, "arrival-order", "request " + std::to_string(a.index) + " maps to an earlier step");
      step = a.step;
    }
    try {
      traces::resolve_workload(workload, 1);  // sizes the caches; allocates nothing large
    } catch (const InputError& e) {
      check_error(e.error(), text);
    }
  });
  return 0;
}
