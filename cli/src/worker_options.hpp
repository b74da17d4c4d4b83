#pragma once
// `--worker-timeout SECONDS` and `--isolate` on every command that takes a backend: the timeout of
// each call to a worker process (docs/worker-protocol.md), and plugins run inside
// qsacheck-worker-host (plugin:X becomes isolated:plugin:X), so one that aborts is a finding.

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace qsa::cli {

struct WorkerOptions {
  std::string timeout;  // seconds as typed; empty: the default (60 s)
  bool isolate = false;
};

/// Adds both options to `command`.
void add_worker_options(CLI::App* command, WorkerOptions* options);

/// Sets the timeout for the backends created from now on (throws InputError for a bad value) and
/// returns `name` as it must be created: with --isolate, plugin:X is isolated:plugin:X.
std::string apply_worker_options(const WorkerOptions& options, const std::string& name);
void apply_worker_options(const WorkerOptions& options, std::vector<std::string>* names);

}  // namespace qsa::cli
