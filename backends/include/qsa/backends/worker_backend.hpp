#pragma once
// The adapter from a worker process (docs/worker-protocol.md) to the Backend interface:
// `worker:COMMAND ARGS` runs any program that speaks the protocol (the Python module
// python/qsacheck_worker, for one), and `isolated:NAME` runs backend NAME (e.g. plugin:PATH.so)
// inside qsacheck-worker-host, our own worker. Like the plugin adapter it validates every input
// with the contract's validator first and declines inputs outside the declared capabilities
// (kNotImplemented, rule missing-capability). Buffers cross in shared memory, only small JSON
// headers over pipes. A worker that crashes, exits, hangs past the timeout or breaks the protocol
// makes the call fail with kInternalError and field "worker" (is_worker_fault()): a finding, never
// a crash or a hang of qsacheck; the next call starts a fresh worker. A worker that does not
// complete the handshake is unavailable.

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "qsa/backend_interface.hpp"
#include "qsa/backends/plugin_capabilities.hpp"
#include "qsa/backends/registry.hpp"
#include "qsa/step_types.hpp"
#include "qsacheck/plugin.h"

namespace qsa::backends {

class WorkerProcess;
class SharedRegion;

/// What the worker said of itself in the handshake.
struct WorkerVariant {
  std::string name;  // [A-Za-z0-9_.-]+, unique
  std::string description;
};

struct WorkerHello {
  std::string name;
  std::string spec_version;
  std::string build_info;
  int protocol = 0;                  // the version it speaks
  KernelDeclaration capabilities;    // capabilities, constraints (protocol 2) and deviations
  /// Planted variants the worker offers (optional "variants"), each run as the command with
  /// `--bug NAME` appended: what `qsacheck mutants --backend worker:COMMAND` runs.
  std::vector<WorkerVariant> variants;
};

class WorkerBackend final : public Backend {
 public:
  /// `name` is "worker:COMMAND ARGS" or "isolated:BACKEND"; starts the process and shakes hands.
  /// With QSA_NO_WORKERS set nothing is started (fuzz_command_line sets it: fuzzed command lines
  /// must not run arbitrary programs).
  explicit WorkerBackend(std::string name);
  ~WorkerBackend() override;

  std::string name() const override { return name_; }
  /// kUnavailable with the reason (the command, the rule, what the worker printed) when the
  /// command cannot start or the handshake fails.
  Status probe(std::string* reason) const override;
  [[nodiscard]] Status build_metadata(const MetadataInput& input, MetadataOutput* output, Error* error) override;
  [[nodiscard]] Status step_update(const StepInput& input, StepCaches* caches, StepOutput* output,
                                   Error* error) override;
  std::optional<std::string> excludes(const MetadataInput& input) const override;
  std::optional<std::string> excludes(const StepInput& input, const StepCaches& caches) const override;
  std::optional<std::string> excludes(const StepGeometry& geometry) const override;
  Deviations deviations() const override;
  bool outside_kernel() const override { return true; }

  /// The handshake's answer (valid when probe() is kOk).
  const WorkerHello& hello() const { return hello_; }
  /// The command as run (arguments re-quoted).
  const std::string& command() const { return command_; }

  /// Seconds from sending each call to its reply (the worker's own time, pipes and its decoding
  /// of the frame included), since construction; qsacheck reports it apart.
  double kernel_seconds() const { return kernel_seconds_; }

 private:
  Status start(const std::vector<std::string>& argv);
  Status call(const nlohmann::json& request, const std::string& what, nlohmann::json* reply, Error* error);
  Status restart_after_fault(Error* error);
  Status earlier_fault(Error* error) const;
  Status fail(const std::string& rule, const std::string& message, Error* error);  // ends the worker
  Status worker_error(const nlohmann::json& reply, const char* call, Error* error);
  Status sync_persistent(const StepInput& input, const StepCaches& caches, bool* caches_changed, Error* error);
  Error capability_error(const std::string& missing) const;

  std::string name_;
  std::string command_;
  std::unique_ptr<SharedRegion> shm_;
  std::unique_ptr<WorkerProcess> process_;
  WorkerHello hello_;
  Error load_error_;
  bool ready_ = false;          // the handshake succeeded
  std::vector<std::string> argv_;  // the command, to restart it after a fault
  std::optional<Error> fault_;     // the last fault, until a restart clears it
  int64_t restarts_ = 0;
  int64_t calls_ = 0;
  double kernel_seconds_ = 0;
  // The part of the shared memory that lives across steps: both caches and the RoPE table.
  struct Persistent {
    CacheLayout ring, compressed;
    size_t ring_offset = 0, compressed_offset = 0, cos_sin_offset = 0, cos_sin_bytes = 0, end = 0;
    bool caches_valid = false;  // the shared memory holds what the last step left
    // The journal tokens (CacheJournal) the shared memory's caches match; 0 while a call is under way.
    uint64_t ring_token = 0, compressed_token = 0;
    std::shared_ptr<const std::vector<Bf16>> cos_sin_source;
  } persistent_;
};

/// Restarts of one backend's worker after faults (each fault is a finding; a worker that fails
/// at every call is not restarted forever).
inline constexpr int64_t kMaxWorkerRestarts = 16;

/// The per-call timeout (`--worker-timeout`, default 60 s) for every backend created after it.
void set_worker_timeout(std::chrono::milliseconds timeout);
std::chrono::milliseconds worker_timeout();

/// The qsacheck-worker-host program: $QSA_WORKER_HOST, else beside the running executable.
std::string worker_host_path();

/// Kills every running worker's process group at once: for exit paths that run no destructors (a
/// signal handler's; it is async-signal-safe: a fixed table and kill()). Also run at exit.
void end_all_workers_now();

/// Registers the "worker:" and "isolated:" families (register_builtin_backends() calls it).
void register_worker_backends(BackendRegistry& registry);

}  // namespace qsa::backends
