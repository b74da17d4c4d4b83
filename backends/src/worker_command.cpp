#include "qsa/backends/worker_command.hpp"

#include "qsa/traces/shell_words.hpp"

namespace qsa::backends {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n'; }

}  // namespace

Status split_worker_command(const std::string& command, std::vector<std::string>* argv, Error* error) {
  argv->clear();
  std::string current;
  bool in_argument = false;  // an argument has started (possibly empty, from '')
  size_t i = 0;
  auto bad = [&](size_t at, const std::string& why) {
    argv->clear();
    return invalid(error, "backend", static_cast<int64_t>(at), "bad-worker-command",
                   "worker command \"" + command + "\": " + why + " at byte " + std::to_string(at) +
                       " (quoting: docs/worker-protocol.md)");
  };
  while (i < command.size()) {
    const char c = command[i];
    if (is_blank(c)) {
      if (in_argument) argv->push_back(current);
      current.clear();
      in_argument = false;
      ++i;
    } else if (c == '\'') {
      const size_t end = command.find('\'', i + 1);
      if (end == std::string::npos) return bad(i, "unterminated single quote");
      current += command.substr(i + 1, end - i - 1);
      in_argument = true;
      i = end + 1;
    } else if (c == '"') {
      size_t j = i + 1;
      for (; j < command.size() && command[j] != '"'; ++j) {
        if (command[j] == '\\' && j + 1 < command.size() && (command[j + 1] == '"' || command[j + 1] == '\\')) ++j;
        current += command[j];
      }
      if (j >= command.size()) return bad(i, "unterminated double quote");
      in_argument = true;
      i = j + 1;
    } else if (c == '\\') {
      if (i + 1 >= command.size()) return bad(i, "trailing backslash");
      current += command[i + 1];
      in_argument = true;
      i += 2;
    } else {
      current += c;
      in_argument = true;
      ++i;
    }
  }
  if (in_argument) argv->push_back(current);
  if (argv->empty()) return bad(0, "empty command");
  return Status::kOk;
}

std::string join_worker_command(const std::vector<std::string>& argv) { return traces::shell_words(argv); }

}  // namespace qsa::backends
