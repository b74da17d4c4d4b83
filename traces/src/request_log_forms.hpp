#pragma once
// Private to the scenario library: the two forms of a request log (request_log.hpp), each read
// line by line into requests; request_log.cpp checks what both share (order, emptiness).

#include <string>
#include <vector>

#include "csv_fields.hpp"
#include "qsa/traces/request_log.hpp"

namespace qsa::traces {

/// JSONL: one object a line, blank lines skipped (request_log_jsonl.cpp).
std::vector<LoggedRequest> parse_jsonl_requests(const std::string& text, const LineContext& ctx,
                                                int64_t hash_block_tokens);
/// Azure's CSV: TIMESTAMP,ContextTokens,GeneratedTokens (request_log_csv.cpp).
std::vector<LoggedRequest> parse_azure_csv_requests(const std::string& text, const LineContext& ctx);

}  // namespace qsa::traces
