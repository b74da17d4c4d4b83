#include "stop_request.hpp"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <optional>

#include "qsa/backends/worker_backend.hpp"

namespace qsa::cli {
namespace {

volatile std::sig_atomic_t g_signal = 0;
std::optional<std::chrono::steady_clock::time_point> g_deadline;
double g_budget_seconds = 0;

extern "C" void on_stop_signal(int signal) {
  if (g_signal != 0 && signal == SIGINT) {
    backends::end_all_workers_now();  // nothing else ends their process groups on this path
    std::signal(SIGINT, SIG_DFL);     // a second Ctrl-C: the user does not want the partial report
    std::raise(SIGINT);
  }
  g_signal = signal;
}

}  // namespace

void install_stop_handlers() {
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  std::signal(SIGHUP, on_stop_signal);  // a closed terminal or an ssh session gone: like SIGTERM
}

void set_time_budget(double seconds) {
  g_budget_seconds = seconds;
  g_deadline = std::chrono::steady_clock::now() +
               std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
}

bool stop_requested() { return g_signal != 0 || (g_deadline && std::chrono::steady_clock::now() >= *g_deadline); }

std::string stop_reason() {
  if (g_signal == SIGINT) return "SIGINT";
  if (g_signal == SIGTERM) return "SIGTERM";
  if (g_signal == SIGHUP) return "SIGHUP";
  if (g_deadline && std::chrono::steady_clock::now() >= *g_deadline) {
    char text[64];
    std::snprintf(text, sizeof text, "the time budget of %g s", g_budget_seconds);
    return text;
  }
  return "";
}

}  // namespace qsa::cli
