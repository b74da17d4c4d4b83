// Request logs (traces/request_log.hpp): both forms read as logged, every bad input an error that
// names the file, line, field and rule, and the log's figures on a log written by hand.

#include <gtest/gtest.h>

#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/request_log.hpp"

namespace qsa::traces {
namespace {

// Hash blocks of 64 tokens: 200 tokens have ceil(200 / 64) = 4 hashes, 3 of them whole blocks.
const char* const kLog =
    R"({"timestamp": 1000, "input_length": 200, "output_length": 30, "hash_ids": [1, 2, 3, 4]}
{"timestamp": 1250, "input_length": 200, "output_length": 10, "hash_ids": [1, 2, 7, 8]}

{"timestamp": 1250, "input_length": 100, "output_length": 5, "hash_ids": [1, 9]}
{"timestamp": 1400, "input_length": 64, "output_length": 1, "hash_ids": [5]}
{"timestamp": 3000, "input_length": 20, "output_length": 40}
)";

Error error_of(const std::string& text, RequestLogFormat format = RequestLogFormat::kJsonl) {
  try {
    parse_request_log(text, "log.jsonl", format, 64);
  } catch (const InputError& e) {
    return e.error();
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return {};
}

TEST(RequestLog, JsonlKeepsEveryRequestAsLogged) {
  const RequestLog log = parse_request_log(kLog, "log.jsonl", RequestLogFormat::kJsonl, 64);
  ASSERT_EQ(log.requests.size(), 5u);
  EXPECT_EQ(log.requests[0].arrival_ms, 1000);
  EXPECT_EQ(log.requests[0].prompt_tokens, 200);
  EXPECT_EQ(log.requests[0].output_tokens, 30);
  EXPECT_EQ(log.requests[0].hash_ids, (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(log.requests[2].line, 4);  // the blank line 3 is skipped, not renumbered
  EXPECT_TRUE(log.requests[4].hash_ids.empty());
}

TEST(RequestLog, FiguresOfAHandWrittenLog) {
  const RequestLog log = parse_request_log(kLog, "log.jsonl", RequestLogFormat::kJsonl, 64);
  const RequestLogFigures f = figures_of(log.requests, 64);
  EXPECT_EQ(f.requests, 5);
  EXPECT_EQ(f.span_ms, 2000);
  EXPECT_DOUBLE_EQ(f.requests_per_s, 2.0);  // 4 gaps in 2 s
  // Prompts sorted 20, 64, 100, 200, 200: p50 = sorted[floor(0.5 * 4)] = 100, p90 = sorted[3] = 200.
  EXPECT_EQ(f.prompt_p50, 100);
  EXPECT_EQ(f.prompt_p90, 200);
  EXPECT_EQ(f.prompt_max, 200);
  // Outputs sorted 1, 5, 10, 30, 40.
  EXPECT_EQ(f.output_p50, 10);
  EXPECT_EQ(f.output_p99, 30);  // sorted[floor(0.99 * 4)] = sorted[3]
  EXPECT_EQ(f.output_max, 40);
  EXPECT_EQ(f.with_hashes, 4);
  // Whole blocks: 3 + 3 + 1 (100 / 64) + 1 = 8. Leading blocks an earlier request logged:
  // request 1 shares [1, 2] with request 0, request 2 shares [1]; request 3 starts with 5 (new).
  EXPECT_EQ(f.hash_blocks, 8);
  EXPECT_EQ(f.prefix_blocks, 3);
  EXPECT_EQ(f.prefix_requests, 2);
}

TEST(RequestLog, SharedWholeHashBlocksCountOnlyBlocksWholeInBothPrompts) {
  const RequestLog log = parse_request_log(kLog, "log.jsonl", RequestLogFormat::kJsonl, 64);
  EXPECT_EQ(shared_whole_hash_blocks(log.requests[0], log.requests[1], 64), 2);
  // Request 2 logs [1, 9] for 100 tokens: block 1 is partial, so only block 0 is whole.
  EXPECT_EQ(shared_whole_hash_blocks(log.requests[0], log.requests[2], 64), 1);
  EXPECT_EQ(shared_whole_hash_blocks(log.requests[0], log.requests[3], 64), 0);
  EXPECT_EQ(shared_whole_hash_blocks(log.requests[0], log.requests[4], 64), 0);  // no hashes logged
}

TEST(RequestLog, AzureCsvKeepsTimestampsInMilliseconds) {
  const RequestLog log = parse_request_log(
      "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03.9799600,4808,10\n"
      "2023-11-16 18:17:04.0319600,3180,8\n",
      "azure.csv", RequestLogFormat::kAzureCsv);
  ASSERT_EQ(log.requests.size(), 2u);
  EXPECT_EQ(log.requests[1].arrival_ms - log.requests[0].arrival_ms, 52);  // .0319600 - .9799600 + 1 s
  EXPECT_EQ(log.requests[0].prompt_tokens, 4808);
  EXPECT_EQ(log.requests[1].output_tokens, 8);
  EXPECT_EQ(log.requests[1].line, 3);
}

TEST(RequestLog, BadInputNamesTheFileLineFieldAndRule) {
  struct Case {
    std::string text;
    std::string field;
    int64_t line;
    std::string rule;
  };
  const std::string good = R"({"timestamp": 5, "input_length": 10, "output_length": 2})";
  const std::vector<Case> cases = {
      {good + "\n" + R"({"timestamp": 6, "output_length": 2})", "input_length", 2, "missing"},
      {R"({"timestamp": 6, "input_length": -3, "output_length": 2})", "input_length", 1, "out-of-range"},
      {R"({"timestamp": 6, "input_length": 3, "output_length": 0})", "output_length", 1, "out-of-range"},
      {good + "\n" + R"({"timestamp": 4, "input_length": 10, "output_length": 2})", "timestamp", 2, "not-monotone"},
      {R"({"timestamp": "12:00", "input_length": 10, "output_length": 2})", "timestamp", 1, "wrong-type"},
      {R"({"timestamp": -1, "input_length": 10, "output_length": 2})", "timestamp", 1, "out-of-range"},
      {R"({"timestamp": 6, "input_length": 130, "output_length": 2, "hash_ids": [1, 2]})", "hash_ids", 1,
       "wrong-length"},  // 130 tokens in blocks of 64 need 3 hashes
      {R"({"timestamp": 6, "input_length": 10, "output_length": 2, "hash_ids": ["a"]})", "hash_ids", 1, "wrong-type"},
      {R"({"timestamp": 6, "input_length": 10, "output_length": 2, "hash_ids": 7})", "hash_ids", 1, "wrong-type"},
      {R"({"timestamp": 6, "input_length": 10, "output_length": 2, "hash_id": [1]})", "hash_id", 1, "unknown-field"},
      {good + "\n{\"timestamp\": 6,", "input", 2, "malformed-json"},
      {"\n\n", "input", 1, "empty"},
  };
  for (const Case& c : cases) {
    const Error e = error_of(c.text);
    EXPECT_EQ(e.field, c.field) << c.text;
    EXPECT_EQ(e.index, c.line) << c.text;
    EXPECT_EQ(e.rule, c.rule) << c.text;
    EXPECT_EQ(e.message.rfind("log.jsonl:" + std::to_string(c.line) + ": ", 0), 0u) << e.message;
  }
  const Error csv = error_of("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03,4,1\n2023-11-16 18:17,4,1\n",
                             RequestLogFormat::kAzureCsv);
  EXPECT_EQ(csv.field, "TIMESTAMP");
  EXPECT_EQ(csv.index, 3);
  EXPECT_EQ(csv.rule, "malformed-timestamp");
  EXPECT_EQ(csv.message.rfind("log.jsonl:3: column TIMESTAMP: ", 0), 0u) << csv.message;
  const Error order = error_of("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03,4,1\n2023-11-16 18:17:02,4,1\n",
                               RequestLogFormat::kAzureCsv);
  EXPECT_EQ(order.field, "TIMESTAMP");
  EXPECT_EQ(order.rule, "not-monotone");
  const Error column = error_of("TIMESTAMP,ContextTokens\n2023-11-16 18:17:03,4\n", RequestLogFormat::kAzureCsv);
  EXPECT_EQ(column.field, "GeneratedTokens");
  EXPECT_EQ(column.rule, "missing-column");
  const Error negative = error_of("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03,-4,1\n",
                                  RequestLogFormat::kAzureCsv);
  EXPECT_EQ(negative.field, "ContextTokens");
  EXPECT_EQ(negative.rule, "not-an-integer");
}

TEST(RequestLog, FormatNamesAndTheDefaultByFileName) {
  EXPECT_EQ(parse_request_log_format("jsonl"), RequestLogFormat::kJsonl);
  EXPECT_EQ(parse_request_log_format("azure-csv"), RequestLogFormat::kAzureCsv);
  EXPECT_THROW(parse_request_log_format("csv"), InputError);
  EXPECT_EQ(request_log_format_of("a/b/AzureLLMInferenceTrace_code.csv"), RequestLogFormat::kAzureCsv);
  EXPECT_EQ(request_log_format_of("trace.jsonl"), RequestLogFormat::kJsonl);
}

}  // namespace
}  // namespace qsa::traces
