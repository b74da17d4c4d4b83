#include "request_log_options.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>

#include "number_options.hpp"
#include "qsa/traces/json_reader.hpp"

namespace qsa::cli {

CLI::Option* add_request_log_options(CLI::App* cmd, RequestLogArguments* a) {
  CLI::Option* requests = cmd->add_option(
      "--requests", a->path,
      "Replay a request log: each logged request arrives in order with its own lengths, and\n"
      "requests whose leading prompt-block hashes are equal share those blocks by a prefix hit\n"
      "(docs/workloads.md \"Request logs\")");
  cmd->add_option("--requests-format", a->format,
                  "jsonl ({\"timestamp\": ms, \"input_length\", \"output_length\", \"hash_ids\"} a line) or\n"
                  "azure-csv (TIMESTAMP,ContextTokens,GeneratedTokens); default: azure-csv for a name\n"
                  "ending in .csv, jsonl otherwise");
  cmd->add_option("--hash-block", a->hash_block, "Prompt tokens per hash of hash_ids, 1 ... 2^20")
      ->capture_default_str();
  cmd->add_option("--window", a->window,
                  "Replay requests FROM:TO of the log (0-based indices in file order, TO exclusive; either\n"
                  "side may be empty: 1000:2000, :500); times count from the window's first request")
      ->capture_default_str();
  cmd->add_option("--time-compression", a->time_compression,
                  "A step is 25 ms of the log times this factor, 1 ... 10^6 (60: an hour-long log in\n"
                  "2400 steps plus the time to serve it)")
      ->capture_default_str();
  cmd->add_option("--length-scale", a->length_scale,
                  "Divide prompt and output lengths by this, 1 ... 2^20 (floor, at least 1); it must divide\n"
                  "--hash-block when the log has hashes")
      ->capture_default_str();
  cmd->add_option("--token-budget", a->token_budget, "Tokens per step (max_num_batched_tokens), 8 ... 2^20")
      ->capture_default_str();
  cmd->add_option("--max-num-seqs", a->max_num_seqs,
                  "Requests per step at most (max_num_seqs), 1 ... 65536; the block pool holds this many\n"
                  "requests of the window's longest length")
      ->capture_default_str();
  cmd->add_option("--cache-blocks", a->cache_blocks,
                  "Blocks of the compressed cache, the prefix cache's pool (vLLM's GPU blocks), 0 ... 2^24;\n"
                  "0: the --max-num-seqs pool above, which holds a window's working set. Fewer blocks than\n"
                  "the working set make the pool evict cached blocks (docs/workloads.md \"Request logs\")")
      ->capture_default_str();
  cmd->add_option("--preempt-per-mille", a->preempt_per_mille,
                  "Chance per step, in thousandths, of preempting one more running request, 0 ... 1000")
      ->capture_default_str();
  cmd->add_option("--prefilled-context", a->prefilled_context,
                  "Each request starts with its first min(N, prompt - 1) positions already in the caches,\n"
                  "written by the reference, and takes no prefix hit: a long prompt completes without\n"
                  "stepping through its prefill (docs/workloads.md \"Pre-filled context\"), 0 ... 2^20")
      ->capture_default_str();
  return requests;
}

RequestLogChoice parse_request_log_arguments(const RequestLogArguments& a) {
  RequestLogChoice c;
  c.path = a.path;
  c.format = a.format.empty() ? traces::request_log_format_of(a.path) : traces::parse_request_log_format(a.format);
  c.hash_block_tokens = parse_integer_option("--hash-block", a.hash_block, 1, int64_t{1} << 20);
  c.replay.window = traces::parse_request_window(a.window);
  c.replay.time_compression = parse_integer_option("--time-compression", a.time_compression, 1, 1000000);
  c.replay.length_scale = parse_integer_option("--length-scale", a.length_scale, 1, int64_t{1} << 20);
  c.replay.token_budget = parse_integer_option("--token-budget", a.token_budget, 8, int64_t{1} << 20);
  c.replay.max_num_seqs = parse_integer_option("--max-num-seqs", a.max_num_seqs, 1, 65536);
  c.replay.preempt_per_mille = parse_integer_option("--preempt-per-mille", a.preempt_per_mille, 0, 1000);
  c.replay.prefilled_context = parse_integer_option("--prefilled-context", a.prefilled_context, 0, int64_t{1} << 20);
  c.replay.cache_blocks = parse_integer_option("--cache-blocks", a.cache_blocks, 0, int64_t{1} << 24);
  return c;
}

std::string RequestLogChoice::settings_text() const {
  std::ostringstream os;
  os << traces::to_string(format) << ' ' << hash_block_tokens << ' ' << replay.window.from << ':' << replay.window.to
     << ' ' << replay.time_compression << ' ' << replay.length_scale << ' ' << replay.token_budget << ' '
     << replay.max_num_seqs << ' ' << replay.preempt_per_mille
     << (replay.prefilled_context > 0 ? " prefilled " + std::to_string(replay.prefilled_context) : std::string())
     << (replay.cache_blocks > 0 ? " cache-blocks " + std::to_string(replay.cache_blocks) : std::string());
  return os.str();
}

traces::Workload request_log_workload(const RequestLogChoice& c) {
  return traces::workload_from_request_log(traces::read_request_log(c.path, c.format, c.hash_block_tokens),
                                           c.replay);
}

}  // namespace qsa::cli
