#include "worker_options.hpp"

#include <chrono>
#include <cmath>

#include "number_options.hpp"
#include "qsa/backends/plugin_library.hpp"
#include "qsa/backends/worker_backend.hpp"
#include "qsa/backends/worker_command.hpp"

namespace qsa::cli {

inline constexpr double kDefaultWorkerTimeoutSeconds = 60;

void add_worker_options(CLI::App* command, WorkerOptions* options) {
  command->add_option("--worker-timeout", options->timeout,
                      "Seconds a worker (--backend worker:\"COMMAND ARGS\", or --isolate) may take for one call,\n"
                      "the handshake included, before it is killed and reported (default 60)");
  command->add_flag("--isolate", options->isolate,
                    "Run plugin:PATH.so backends inside qsacheck-worker-host, a process of their own, so one that\n"
                    "aborts, faults or hangs is a finding instead of the end of qsacheck");
}

std::string apply_worker_options(const WorkerOptions& options, const std::string& name) {
  const double seconds = options.timeout.empty() ? kDefaultWorkerTimeoutSeconds
                                                 : parse_seconds_option("--worker-timeout", options.timeout);
  backends::set_worker_timeout(std::chrono::milliseconds(static_cast<int64_t>(std::ceil(seconds * 1000))));
  if (options.isolate && name.rfind(backends::kPluginPrefix, 0) == 0) return backends::kIsolatedPrefix + name;
  return name;
}

void apply_worker_options(const WorkerOptions& options, std::vector<std::string>* names) {
  apply_worker_options(options, std::string());  // the timeout, also when no backend is named
  for (std::string& name : *names) name = apply_worker_options(options, name);
}

}  // namespace qsa::cli
