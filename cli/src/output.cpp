#include "output.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <new>

#include "qsa/traces/json_codec.hpp"
#include "qsa/traces/limits.hpp"

namespace qsa::cli {

std::string read_input(const std::string& path) {
  if ((path.empty() || path == "-") && isatty(STDIN_FILENO) != 0)
    std::cerr << "qsacheck: reading the JSON input from standard input (end it with Ctrl-D; --input FILE reads a "
                 "file)\n";
  return traces::read_input_text(path);
}

std::string json_text(const nlohmann::json& json, int indent) {
  return json.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

void print_json(const nlohmann::json& json) { std::cout << json_text(json) << "\n" << std::flush; }

namespace {

// An error names a field and says what is wrong; it never echoes a huge value whole (a
// 10 MB key came back as the field). A field is cut at 200 bytes and a message at 4 KiB (room for
// the 2 KiB of a worker's output a handshake error quotes), each with a marker saying so.
std::string cut(const std::string& text, size_t limit) {
  if (text.size() <= limit) return text;
  return text.substr(0, limit) + "... (" + std::to_string(text.size() - limit) + " more bytes)";
}

}  // namespace

int report_error(const Error& error) {
  Error shown = error;
  shown.field = cut(error.field, kMaxErrorFieldBytes);
  shown.message = cut(error.message, kMaxErrorMessageBytes);
  print_json(traces::error_to_json(shown));
  std::cerr << "qsacheck: " << to_string(shown) << "\n";
  return kExitUsage;
}

int finish_standard_output(int code) {
  std::cout.flush();
  errno = 0;
  const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
  const int why = errno;
  const bool close_failed = std::fclose(stdout) != 0;
  if (!failed && !close_failed) return code;
  std::cerr << "qsacheck: could not write standard output"
            << (why != 0 ? std::string(": ") + std::strerror(why) : std::string()) << "; "
            << (code == kExitOk ? "exit 3 instead of 0, the report did not reach its reader"
                                : "the exit code stays " + std::to_string(code))
            << "\n";
  return code == kExitOk ? kExitIncomplete : code;
}

bool stderr_is_terminal() { return isatty(STDERR_FILENO) != 0; }

const char* const kOutOfMemoryMessage =
    "ran out of memory; the inputs are within the limits (QSA_MAX_INPUT_BYTES, QSA_MAX_CACHE_BYTES), so the "
    "machine or its memory limit is smaller than they assume";

namespace {

void write_whole(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// Built before any allocation can fail, so the handler allocates nothing.
std::string out_of_memory_line;
std::string out_of_memory_prose;
std::atomic_flag out_of_memory_reported = ATOMIC_FLAG_INIT;

void out_of_memory() {
  // One thread answers; any other that runs out meanwhile waits for the _exit.
  if (out_of_memory_reported.test_and_set()) {
    while (true) pause();
  }
  write_whole(STDOUT_FILENO, out_of_memory_line);
  write_whole(STDERR_FILENO, out_of_memory_prose);
  _exit(kExitUsage);
}

}  // namespace

void end_on_out_of_memory() {
  const Error error{"memory", -1, "out-of-memory", kOutOfMemoryMessage};
  out_of_memory_line = json_text(traces::error_to_json(error)) + "\n";
  out_of_memory_prose = "qsacheck: " + to_string(error) + "\n";
  std::set_new_handler(out_of_memory);
}

}  // namespace qsa::cli
