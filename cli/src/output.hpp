#pragma once
// Exit codes (defined in qsa/engine/exit_codes.hpp), input reading and JSON printing shared by the qsacheck subcommands: the one place
// that writes to stdout in JSON (docs/json-schema.md, "Errors and exit codes").

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "qsa/engine/exit_codes.hpp"
#include "qsa/status.hpp"

namespace qsa::cli {

using engine::kExitIncomplete;
using engine::kExitMismatch;
using engine::kExitOk;
using engine::kExitUsage;

/// The whole of FILE, or of standard input when path is empty or "-" (saying so on stderr when
/// standard input is a terminal). Bounded by traces::max_input_bytes(); throws InputError.
std::string read_input(const std::string& path);

/// JSON text; a string that is not valid UTF-8 (a path, an echoed input) has its bad bytes replaced
/// by U+FFFD instead of throwing, so an error about bad bytes can always be printed.
std::string json_text(const nlohmann::json& json, int indent = -1);

/// Prints one JSON document on a line of its own on stdout.
void print_json(const nlohmann::json& json);

/// The longest field and message an error prints; longer ones are cut with a marker.
inline constexpr size_t kMaxErrorFieldBytes = 200;
inline constexpr size_t kMaxErrorMessageBytes = 4096;

/// Prints {"status": "error", ...} on stdout, the readable form on stderr; returns kExitUsage.
/// The one way a command ends with exit 2: stdout then holds exactly this line.
int report_error(const Error& error);

/// The last word of every command: flushes and closes standard output and, when a write
/// to it failed (a full disk, a closed pipe: SIGPIPE is ignored so it is an error, not a death),
/// says so on stderr and turns exit 0 into 3 (the report did not reach its reader); any other
/// code is kept. Returns the exit code.
int finish_standard_output(int code);

/// True when stderr is a terminal (progress redraws in place) rather than a log or pipe.
bool stderr_is_terminal();

/// The words of rule `out-of-memory` (field `memory`): the machine ran out within the limits.
extern const char* const kOutOfMemoryMessage;

/// Makes a failed operator new end the process at once with exit 2 and the one JSON line of rule
/// `out-of-memory`, instead of throwing std::bad_alloc: unwinding destroys the JSON trees alive,
/// and nlohmann's destructor allocates a stack as long as the largest array (a noexcept
/// destructor, so a second failure there was std::terminate, exit 134). The line and its prose are
/// written with write(2) from static text, so nothing more is allocated; a report half-built in
/// memory is lost, as it would have been by the exception. See docs/limits.md, "Out of memory".
void end_on_out_of_memory();

}  // namespace qsa::cli
