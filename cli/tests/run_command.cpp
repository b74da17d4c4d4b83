#include "run_command.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace qsa::testing {

CommandResult run_qsacheck(const std::string& args, const std::string& stdin_text) {
  char path[] = "/tmp/qsacheck-test-input-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) return {};
  close(fd);
  std::ofstream(path) << stdin_text;
  const std::string command = std::string(QSACHECK_BINARY) + " " + args + " < " + path + " 2>/dev/null";
  CommandResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe != nullptr) {
    std::array<char, 4096> buffer{};
    size_t n = 0;
    while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.out.append(buffer.data(), n);
    const int status = pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::remove(path);
  return result;
}

std::string temp_dir() {
  char dir[] = "/tmp/qsacheck-test-XXXXXX";
  const char* made = mkdtemp(dir);
  return made != nullptr ? made : "/tmp";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace qsa::testing
