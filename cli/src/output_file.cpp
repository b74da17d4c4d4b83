#include "output_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "output.hpp"
#include "qsa/traces/json_reader.hpp"

namespace qsa::cli {
namespace {

[[noreturn]] void unwritable(const std::string& option, const std::string& why) {
  throw traces::InputError(Error{option, -1, "unwritable", why});
}

std::string folder_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

void check_output_file(const std::string& path, const std::string& option) {
  if (path.empty()) unwritable(option, "the path is empty");
  struct stat info {};
  if (stat(path.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode)) unwritable(option, path + " is a folder; give a file name inside it");
    if (access(path.c_str(), W_OK) != 0) unwritable(option, "cannot replace " + path + ": " + std::strerror(errno));
  }
  check_output_directory(folder_of(path), option);
}

void check_output_directory(const std::string& path, const std::string& option) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) unwritable(option, "folder " + path + ": " + std::strerror(errno));
  if (!S_ISDIR(info.st_mode)) unwritable(option, path + " is not a folder");
  if (access(path.c_str(), W_OK | X_OK) != 0)
    unwritable(option, "cannot write into folder " + path + ": " + std::strerror(errno));
}

std::optional<std::string> write_file_atomically(const std::string& path, const std::string& text) {
  std::string temporary = path + ".tmp-XXXXXX";
  const int fd = mkstemp(temporary.data());
  if (fd < 0) return "cannot create a temporary file beside " + path + ": " + std::strerror(errno);
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = std::strerror(errno);
      close(fd);
      unlink(temporary.c_str());
      return "cannot write " + temporary + ": " + why;
    }
    written += static_cast<size_t>(n);
  }
  // mkstemp makes the file private (0600); a report is an ordinary file (0666 less the umask).
  const mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  if (close(fd) != 0 || std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    unlink(temporary.c_str());
    return "cannot replace " + path + ": " + why;
  }
  return std::nullopt;
}

void ReportOutput::check() const {
  if (!json_path_.empty() && !json_on_stdout()) check_output_file(json_path_, "--json");
}

std::ostream& ReportOutput::human() const { return json_on_stdout() ? std::cerr : std::cout; }

int ReportOutput::finish(nlohmann::json report, int verdict) {
  std::fflush(stdout);
  if (!json_path_.empty()) {
    report["unwritten_outputs"] = lost_;
    if (json_on_stdout()) {
      print_json(report);
    } else if (auto why = write_file_atomically(json_path_, json_text(report, 2) + "\n")) {
      lost_.push_back("the JSON report " + json_path_ + " (" + *why + ")");
    }
  }
  for (const std::string& what : lost_)
    std::cerr << "qsacheck: could not write " << what << "; the exit code is still the verdict's (" << verdict << ")\n";
  return verdict;
}

}  // namespace qsa::cli
