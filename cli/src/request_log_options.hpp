#pragma once
// The options of a request log replay, shared by `simulate --requests` and `check --requests`
// (docs/workloads.md "Request logs"): the file and its form, the hash block, the window, the time
// compression, the length scale, the token budget, the preemption rate and the pre-filled context. Read as text and
// parsed in the command's callback, so a bad value is an exit-2 error naming its option.

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "qsa/traces/request_replay.hpp"
#include "qsa/traces/scenario.hpp"

namespace qsa::cli {

struct RequestLogArguments {
  std::string path;  // --requests; empty: no log
  std::string format, hash_block = "512", window = ":", time_compression = "1", length_scale = "1";
  std::string token_budget = "8192", max_num_seqs = "1024", preempt_per_mille = "5", prefilled_context = "0";
  std::string cache_blocks = "0";
};

/// Adds --requests and the replay options to `cmd`; returns the --requests option (for excludes()).
CLI::Option* add_request_log_options(CLI::App* cmd, RequestLogArguments* arguments);

struct RequestLogChoice {
  std::string path;
  traces::RequestLogFormat format = traces::RequestLogFormat::kJsonl;
  int64_t hash_block_tokens = traces::kDefaultHashBlockTokens;
  traces::ReplayOptions replay;
  /// The options as canonical text, for a campaign's settings hash.
  std::string settings_text() const;
};

/// Parses every option (numbers, the format, the window); reads nothing. Throws InputError.
RequestLogChoice parse_request_log_arguments(const RequestLogArguments& arguments);

/// Reads the log and builds the replay workload. Throws InputError (the file, or a window or a
/// scale the log does not allow).
traces::Workload request_log_workload(const RequestLogChoice& choice);

}  // namespace qsa::cli
