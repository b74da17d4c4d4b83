#pragma once
// Stopping a long command early without losing what it found: SIGINT, SIGTERM, SIGHUP or the
// --time-budget deadline set a flag that the campaign polls between steps; the command then
// writes its partial report (exit 1 if something was found, else 3). A second SIGINT ends the
// process at once.

#include <string>

namespace qsa::cli {

/// Installs the SIGINT, SIGTERM and SIGHUP handlers.
void install_stop_handlers();

/// Stops the work `seconds` after this call.
void set_time_budget(double seconds);

/// True once a signal arrived or the time budget is spent.
bool stop_requested();

/// Why: "SIGINT", "SIGTERM", "SIGHUP" or "the time budget of 30 s"; empty when not stopped.
std::string stop_reason();

}  // namespace qsa::cli
