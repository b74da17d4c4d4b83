// The JSONL form of a request log (request_log.hpp): one JSON object a line.
#include <sstream>

#include "csv_fields.hpp"
#include "qsa/traces/json_reader.hpp"
#include "request_log_forms.hpp"

namespace qsa::traces {

namespace {

LoggedRequest request_of(const nlohmann::json& object, int64_t line, int64_t hash_block_tokens) {
  JsonObjectReader r(object);
  LoggedRequest q;
  q.line = line;
  q.arrival_ms = r.integer("timestamp");
  if (q.arrival_ms < 0) r.fail("timestamp", -1, "out-of-range", "a timestamp is milliseconds, >= 0");
  auto tokens = [&](const char* field) {
    const int64_t value = r.integer(field);
    if (value < 1 || value > kMaxRequestTokens)
      r.fail(field, -1, "out-of-range", "token count " + std::to_string(value) + " is outside [1, 2^24]");
    return value;
  };
  q.prompt_tokens = tokens("input_length");
  q.output_tokens = tokens("output_length");
  if (const nlohmann::json* hashes = r.optional_raw("hash_ids")) {
    if (!hashes->is_array())
      r.fail("hash_ids", -1, "wrong-type", std::string("expected an array of integers, got ") + hashes->type_name());
    for (size_t i = 0; i < hashes->size(); ++i) q.hash_ids.push_back(json_integer((*hashes)[i], "hash_ids", -1));
    const int64_t blocks = (q.prompt_tokens + hash_block_tokens - 1) / hash_block_tokens;
    if (static_cast<int64_t>(q.hash_ids.size()) != blocks)
      r.fail("hash_ids", -1, "wrong-length",
             std::to_string(q.hash_ids.size()) + " hashes for " + std::to_string(q.prompt_tokens) +
                 " prompt tokens; one per block of " + std::to_string(hash_block_tokens) + " tokens makes " +
                 std::to_string(blocks) + " (another block size: --hash-block)");
  }
  r.reject_unknown_fields();
  return q;
}

}  // namespace

std::vector<LoggedRequest> parse_jsonl_requests(const std::string& text, const LineContext& ctx,
                                                int64_t hash_block_tokens) {
  std::vector<LoggedRequest> requests;
  std::istringstream file(text);
  std::string line;
  for (int64_t number = 1; std::getline(file, line); ++number) {
    if (trim(line).empty()) continue;
    try {
      requests.push_back(request_of(parse_json(line), number, hash_block_tokens));
    } catch (const InputError& e) {  // the reader names the field; the line and the file are ours
      const Error& error = e.error();
      const std::string field = error.field == "input" || error.field.empty() ? "input" : error.field;
      ctx.fail(field, number, error.rule, error.message);
    }
  }
  return requests;
}

}  // namespace qsa::traces
