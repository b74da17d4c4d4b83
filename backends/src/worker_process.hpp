#pragma once
// One worker process (docs/worker-protocol.md): started without a shell in its own process group,
// with the request pipe as fd 3, the reply pipe as fd 4, the shared memory as fd 5 and its
// printed output (fd 1 and 2) captured, the last 64 KiB kept. Every wait has a deadline and every
// read a bound, so a worker that crashes, exits, hangs or writes garbage ends the call with an
// Error (field "worker") and never blocks or crashes qsacheck. The whole group is killed when the
// process ends, on every path (end_all_workers_now() for a signal handler's path).

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "qsa/status.hpp"

namespace qsa::backends {

inline constexpr size_t kMaxFrameBytes = size_t{1} << 20;  // a JSON header over 1 MiB is malformed
inline constexpr char kFrameMagic[4] = {'Q', 'S', 'A', 'W'};

class WorkerProcess {
 public:
  WorkerProcess() = default;
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;
  /// end(): asks it to leave (bye), waits briefly, then kills the process group.
  ~WorkerProcess();

  /// Starts argv[0] (looked up in PATH when it holds no '/') with `shm_fd` as its fd 5.
  /// kUnavailable with the reason (e.g. "cannot run nope: No such file or directory").
  Status start(const std::vector<std::string>& argv, int shm_fd, Error* error);

  /// Sends one frame (magic, length, JSON text) within `timeout`.
  Status send(const std::string& json, std::chrono::milliseconds timeout, Error* error);
  /// Waits for one frame within `timeout` and returns its JSON text. A death, an EOF, a bad
  /// magic or length, or the deadline is an Error (rule worker-crashed, worker-exited,
  /// malformed-frame, worker-timeout) naming `what` ("the reply to step 12") and the output tail.
  Status receive(const std::string& what, std::chrono::milliseconds timeout, std::string* json, Error* error);

  /// Sends bye, waits up to `grace` for the exit, then kills the group and reaps it.
  void end(std::chrono::milliseconds grace);

  bool running() const { return pid_ > 0; }
  /// The last bytes the worker printed (fd 1 and 2), non-printable bytes as '?', at most `bytes`.
  std::string output_tail(size_t bytes = 2048) const;
  /// A fault: kills the group, reaps it, and returns Error{"worker", -1, rule, message + how it
  /// ended + output tail}. An empty rule: the worker ended by itself, and the rule says how
  /// (worker-crashed for a signal, worker-exited for an exit status or closed pipes).
  Error fault(std::string rule, const std::string& message);

 private:
  void drain_output();
  std::string ending();  // "killed by signal 11 (Segmentation fault)", "exited with status 3", ...
  void kill_group();

  pid_t pid_ = -1;
  int request_fd_ = -1;
  int reply_fd_ = -1;
  int output_fd_ = -1;
  std::string output_;    // tail of the printed output
  std::string pending_;   // reply bytes read but not yet used
  std::string command_;   // for messages
  bool crashed_ = false;  // ending() saw a death by a signal
};

/// In a child forked for another purpose (the plugin probe): forgets the parent's worker groups, so
/// an exit() there, running the parent's atexit handlers, cannot kill the parent's workers.
void forget_workers_in_child();

}  // namespace qsa::backends
