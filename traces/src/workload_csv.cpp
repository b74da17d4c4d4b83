// A workload fitted to a user's CSV of requests (see workload_from_requests_csv in workloads.hpp).
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "csv_fields.hpp"
#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/limits.hpp"
#include "qsa/traces/workloads.hpp"

namespace qsa::traces {

Workload workload_from_requests_csv(const std::string& path) {
  return workload_from_requests_csv_text(read_input_text(path), path);
}

Workload workload_from_requests_csv_text(const std::string& text, const std::string& path) {
  const LineContext ctx(path);
  const CsvLines csv = read_csv_lines(text, ctx);
  const std::vector<std::string>& header = csv.header;

  // Our own column names first, then Azure's.
  std::string prompt_name = "prompt_tokens", output_name = "output_tokens";
  if (!column_of(header, prompt_name) && column_of(header, "ContextTokens")) {
    prompt_name = "ContextTokens";
    output_name = "GeneratedTokens";
  }
  const auto prompt_col = column_of(header, prompt_name);
  const auto output_col = column_of(header, output_name);
  if (!prompt_col)
    ctx.fail(prompt_name, 1, "missing-column",
             "the header names no " + prompt_name +
                 " column (expected prompt_tokens,output_tokens or TIMESTAMP,ContextTokens,GeneratedTokens)");
  if (!output_col) ctx.fail(output_name, 1, "missing-column", "the header names no " + output_name + " column");
  const auto time_col = column_of(header, "TIMESTAMP");

  std::vector<int64_t> prompts, outputs;
  std::optional<int64_t> first_us, last_us;
  for (const auto& [number, fields] : csv.rows) {
    prompts.push_back(parse_tokens(ctx, fields[*prompt_col], prompt_name, number));
    outputs.push_back(parse_tokens(ctx, fields[*output_col], output_name, number));
    if (time_col) {
      const int64_t us = parse_timestamp_us(ctx, fields[*time_col], number);
      first_us = first_us ? std::min(*first_us, us) : us;
      last_us = last_us ? std::max(*last_us, us) : us;
    }
  }
  if (prompts.empty()) ctx.fail("input", 2, "empty", "no request lines after the header");

  Workload w = workload_by_name("default");
  w.name = "csv";
  w.description = "request lengths from " + path;
  w.geometries = {{4, 3, 16}, {4, 3, 64}};
  w.prompt_tokens = LengthTable::from_samples(prompts);
  w.output_tokens = LengthTable::from_samples(outputs);
  if (first_us && *last_us > *first_us) {
    const auto gaps = static_cast<int64_t>(prompts.size()) - 1;
    w.trace_requests_per_ks = std::max<int64_t>(1, gaps * 1000000000 / (*last_us - *first_us));
  }
  return w;
}

}  // namespace qsa::traces
