#include "worker_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "qsa/backend_interface.hpp"
#include "qsa/backends/worker_backend.hpp"
#include "qsa/backends/worker_command.hpp"
#include "qsa/backends/worker_protocol.hpp"

extern char** environ;

namespace qsa::backends {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kOutputKept = 64 * 1024;

// Process groups of the running workers, for end_all_workers_now() (a signal handler may call it).
constexpr int kMaxGroups = 256;
std::atomic<pid_t> g_groups[kMaxGroups];

void remember_group(pid_t pgid) {
  for (auto& slot : g_groups) {
    pid_t empty = 0;
    if (slot.compare_exchange_strong(empty, pgid)) return;
  }
}

void forget_group(pid_t pgid) {
  for (auto& slot : g_groups) {
    pid_t expected = pgid;
    if (slot.compare_exchange_strong(expected, 0)) return;
  }
}

// A signal whose action is still the default (the process dies without running destructors):
// end the workers' groups first, then die of it as before.
extern "C" void end_workers_and_die(int signal) {
  end_all_workers_now();
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

// Once per process: a worker that closes its pipes must give EPIPE, not kill qsacheck; the groups
// end on every exit that runs atexit handlers, and on SIGINT, SIGTERM and SIGHUP where nothing
// else handles them (a command with its own handlers, like check, ends them through destructors).
void prepare_process_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::signal(SIGPIPE, SIG_IGN);
    std::atexit(end_all_workers_now);
    for (int signal : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction current {};
      if (sigaction(signal, nullptr, &current) == 0 && current.sa_handler == SIG_DFL)
        std::signal(signal, end_workers_and_die);
    }
  });
}

// A descriptor moved to a number >= 10 (close-on-exec), so the child's dup2 onto 0-5 never
// overwrites a source it still needs.
int high_fd(int fd) {
  const int moved = fcntl(fd, F_DUPFD_CLOEXEC, 10);
  close(fd);
  return moved;
}

void set_nonblocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

std::chrono::milliseconds left(Clock::time_point deadline) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return ms.count() > 0 ? ms : std::chrono::milliseconds(0);
}

std::string seconds_text(std::chrono::milliseconds ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", static_cast<double>(ms.count()) / 1000.0);
  return text;
}

void close_fd(int* fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

}  // namespace

void forget_workers_in_child() {
  for (auto& slot : g_groups) slot.store(0);
}

void end_all_workers_now() {
  for (auto& slot : g_groups) {
    const pid_t pgid = slot.load();
    if (pgid > 0) kill(-pgid, SIGKILL);
  }
}

WorkerProcess::~WorkerProcess() { end(std::chrono::milliseconds(500)); }

Status WorkerProcess::start(const std::vector<std::string>& argv, int shm_fd, Error* error) {
  prepare_process_once();
  command_ = join_worker_command(argv);
  int request[2], reply[2], output[2], exec_error[2];
  if (pipe2(request, O_CLOEXEC) != 0 || pipe2(reply, O_CLOEXEC) != 0 || pipe2(output, O_CLOEXEC) != 0 ||
      pipe2(exec_error, O_CLOEXEC) != 0) {
    *error = Error{"worker", -1, "cannot-start", command_ + ": pipe failed: " + std::strerror(errno)};
    return Status::kUnavailable;
  }
  for (int* fd : {&request[0], &request[1], &reply[0], &reply[1], &output[0], &output[1]}) *fd = high_fd(*fd);
  const int shm = fcntl(shm_fd, F_DUPFD_CLOEXEC, 10);
  const int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

  // Everything the child needs is built before fork: it may only make async-signal-safe calls.
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::string marker = "QSACHECK_WORKER_PROTOCOL=" + std::to_string(kWorkerProtocolVersion);
  std::vector<char*> env;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::strncmp(*e, "QSACHECK_WORKER_PROTOCOL=", 25) != 0) env.push_back(*e);
  env.push_back(marker.data());
  env.push_back(nullptr);

  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    signal(SIGPIPE, SIG_DFL);
    sigset_t all;
    sigemptyset(&all);
    sigprocmask(SIG_SETMASK, &all, nullptr);
    if (dup2(null_fd, 0) < 0 || dup2(output[1], 1) < 0 || dup2(output[1], 2) < 0 || dup2(request[0], 3) < 0 ||
        dup2(reply[1], 4) < 0 || dup2(shm, 5) < 0)
      _exit(127);
    execvpe(args[0], args.data(), env.data());
    const int code = errno;
    (void)!write(exec_error[1], &code, sizeof code);
    _exit(127);
  }
  const int fork_errno = errno;
  for (int fd : {request[0], reply[1], output[1], shm, null_fd, exec_error[1]}) close(fd);
  if (pid < 0) {
    for (int fd : {request[1], reply[0], output[0], exec_error[0]}) close(fd);
    *error = Error{"worker", -1, "cannot-start", command_ + ": fork failed: " + std::strerror(fork_errno)};
    return Status::kUnavailable;
  }
  setpgid(pid, pid);  // also here, so the group exists before anything is sent to it
  pid_ = pid;
  remember_group(pid);
  request_fd_ = request[1];
  reply_fd_ = reply[0];
  output_fd_ = output[0];
  int code = 0;
  ssize_t got;
  do got = read(exec_error[0], &code, sizeof code);
  while (got < 0 && errno == EINTR);
  close(exec_error[0]);
  if (got == static_cast<ssize_t>(sizeof code)) {
    end(std::chrono::milliseconds(0));
    *error = Error{"worker", -1, "cannot-start", "cannot run " + argv[0] + ": " + std::strerror(code)};
    return Status::kUnavailable;
  }
  for (int fd : {request_fd_, reply_fd_, output_fd_}) set_nonblocking(fd);
  return Status::kOk;
}

void WorkerProcess::drain_output() {
  char buffer[16384];
  for (int rounds = 0; output_fd_ >= 0 && rounds < 64; ++rounds) {  // bounded: 1 MiB per call at most
    const ssize_t n = read(output_fd_, buffer, sizeof buffer);
    if (n > 0) {
      output_.append(buffer, static_cast<size_t>(n));
      if (output_.size() > kOutputKept) output_.erase(0, output_.size() - kOutputKept);
    } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
      close_fd(&output_fd_);
    } else {
      return;
    }
  }
}

std::string WorkerProcess::output_tail(size_t bytes) const {
  std::string tail = output_.size() > bytes ? output_.substr(output_.size() - bytes) : output_;
  for (char& c : tail)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') || static_cast<unsigned char>(c) >= 0x7f)
      c = '?';
  while (!tail.empty() && tail.back() == '\n') tail.pop_back();
  return tail;
}

void WorkerProcess::kill_group() {
  if (pid_ > 0) kill(-pid_, SIGKILL);
}

std::string WorkerProcess::ending() {
  // Peek (WNOWAIT) so the group's id stays reserved until it is killed; then reap.
  siginfo_t info{};
  const auto deadline = Clock::now() + std::chrono::seconds(1);
  bool ended = false;
  while (true) {
    info.si_pid = 0;
    if (waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid_) {
      ended = true;
      break;
    }
    if (Clock::now() >= deadline) break;
    usleep(2000);
  }
  kill_group();
  waitpid(pid_, nullptr, 0);
  forget_group(pid_);
  pid_ = -1;
  if (!ended) return "it closed its reply pipe but kept running (killed)";
  crashed_ = info.si_code != CLD_EXITED;
  if (info.si_code == CLD_EXITED) return "it exited with status " + std::to_string(info.si_status);
  return "it was killed by signal " + std::to_string(info.si_status) + " (" + strsignal(info.si_status) + ")";
}

Error WorkerProcess::fault(std::string rule, const std::string& message) {
  drain_output();
  const bool by_itself = rule.empty();
  std::string how;
  if (pid_ > 0) {
    if (!by_itself) kill_group();  // a hang or garbage: qsacheck ends it
    how = ending();
  }
  if (by_itself) rule = crashed_ ? "worker-crashed" : "worker-exited";
  std::string text = "worker `" + command_ + "`: " + message;
  text += by_itself ? (how.empty() ? "" : "; " + how) : "; qsacheck ended it";
  const std::string tail = output_tail();
  text += tail.empty() ? "; it printed nothing" : "; its last output:\n" + tail;
  close_fd(&request_fd_);
  close_fd(&reply_fd_);
  close_fd(&output_fd_);
  return Error{kWorkerFaultField, -1, rule, text};
}

Status WorkerProcess::send(const std::string& json, std::chrono::milliseconds timeout, Error* error) {
  if (pid_ < 0) {
    *error = Error{"worker", -1, "worker-gone", "worker `" + command_ + "` is no longer running"};
    return Status::kInternalError;
  }
  std::string frame(kFrameMagic, 4);
  const auto n = static_cast<uint32_t>(json.size());
  for (int i = 0; i < 4; ++i) frame += static_cast<char>((n >> (8 * i)) & 0xff);
  frame += json;
  const auto deadline = Clock::now() + timeout;
  size_t sent = 0;
  while (sent < frame.size()) {
    const ssize_t w = write(request_fd_, frame.data() + sent, frame.size() - sent);
    if (w > 0) {
      sent += static_cast<size_t>(w);
      continue;
    }
    if (w < 0 && errno == EPIPE) {
      *error = fault("", "it stopped reading its requests");
      return Status::kInternalError;
    }
    if (w < 0 && errno != EAGAIN && errno != EINTR) {
      *error = fault("", std::string("writing a request failed: ") + std::strerror(errno));
      return Status::kInternalError;
    }
    pollfd p[2] = {{request_fd_, POLLOUT, 0}, {output_fd_, POLLIN, 0}};
    const int ready = poll(p, output_fd_ >= 0 ? 2 : 1, static_cast<int>(left(deadline).count()));
    if (ready == 0) {
      *error = fault("worker-timeout", "it did not read its request within " + seconds_text(timeout));
      return Status::kInternalError;
    }
    if (output_fd_ >= 0 && p[1].revents != 0) drain_output();
  }
  return Status::kOk;
}

Status WorkerProcess::receive(const std::string& what, std::chrono::milliseconds timeout, std::string* json,
                              Error* error) {
  if (pid_ < 0) {
    *error = Error{"worker", -1, "worker-gone", "worker `" + command_ + "` is no longer running"};
    return Status::kInternalError;
  }
  const auto deadline = Clock::now() + timeout;
  while (true) {
    size_t needed = 8;
    if (pending_.size() >= 8) {
      if (std::memcmp(pending_.data(), kFrameMagic, 4) != 0) {
        *error = fault("malformed-frame", "the " + what + " does not start with the frame magic \"QSAW\"");
        return Status::kInternalError;
      }
      uint32_t n = 0;
      for (int i = 0; i < 4; ++i) n |= static_cast<uint32_t>(static_cast<uint8_t>(pending_[4 + i])) << (8 * i);
      if (n == 0 || n > kMaxFrameBytes) {
        *error = fault("malformed-frame",
                       "the " + what + " announces " + std::to_string(n) + " header bytes (1 ... 1 MiB allowed)");
        return Status::kInternalError;
      }
      needed = 8 + n;
      if (pending_.size() == needed) {
        *json = pending_.substr(8);
        pending_.clear();
        return Status::kOk;
      }
    }
    char buffer[65536];
    const size_t want = std::min(sizeof buffer, needed - pending_.size());
    const ssize_t r = read(reply_fd_, buffer, want);
    if (r > 0) {
      pending_.append(buffer, static_cast<size_t>(r));
      continue;
    }
    if (r == 0) {
      *error = fault("", "no " + what + " (its reply pipe closed)");
      return Status::kInternalError;
    }
    if (errno != EAGAIN && errno != EINTR) {
      *error = fault("", "reading " + what + " failed: " + std::strerror(errno));
      return Status::kInternalError;
    }
    pollfd p[2] = {{reply_fd_, POLLIN, 0}, {output_fd_, POLLIN, 0}};
    const int ready = poll(p, output_fd_ >= 0 ? 2 : 1, static_cast<int>(left(deadline).count()));
    if (ready == 0 && left(deadline).count() == 0) {
      *error = fault("worker-timeout", "no " + what + " within " + seconds_text(timeout) + " (--worker-timeout)");
      return Status::kInternalError;
    }
    if (output_fd_ >= 0 && p[1].revents != 0) drain_output();
  }
}

void WorkerProcess::end(std::chrono::milliseconds grace) {
  if (pid_ > 0) {
    if (grace.count() > 0) {
      Error ignored;
      const std::string bye = R"({"op":"bye"})";
      std::string frame(kFrameMagic, 4);
      for (int i = 0; i < 4; ++i) frame += static_cast<char>((bye.size() >> (8 * i)) & 0xff);
      frame += bye;
      (void)!write(request_fd_, frame.data(), frame.size());  // best effort: the pipe has room for it
    }
    close_fd(&request_fd_);
    const auto deadline = Clock::now() + grace;
    siginfo_t info{};
    while (Clock::now() < deadline) {
      info.si_pid = 0;
      if (waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid_) break;
      usleep(2000);
    }
    kill_group();  // also whatever the worker started, before the leader is reaped
    waitpid(pid_, nullptr, 0);
    forget_group(pid_);
    pid_ = -1;
  }
  close_fd(&request_fd_);
  close_fd(&reply_fd_);
  close_fd(&output_fd_);
}

}  // namespace qsa::backends
