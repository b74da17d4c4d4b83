#include "output_file.hpp"

#include <fcntl.h>
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
  throw InputError(Error{option, -1, "unwritable", why});
}

// The temporary file an atomic write renames over its target sits beside it under this suffix.
constexpr const char* kTemporarySuffix = ".tmp-XXXXXX";

std::string folder_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// /proc/self/fd/1, /proc/123/fd/4, /dev/fd/1: a descriptor's magic link (what /dev/stdout leads
// to). Its text ("pipe:[1234]", a deleted file) is no path; opening the link itself reopens the
// descriptor's file, so it is written in place and never followed further.
bool is_descriptor_link(const std::string& path) {
  return (path.rfind("/proc/", 0) == 0 && path.find("/fd/") != std::string::npos) || path.rfind("/dev/fd/", 0) == 0;
}

// The file a path names once symbolic links are followed, dangling ones included: writing through
// a link writes its target and keeps the link (the rename used to replace the link).
std::string link_target(const std::string& path) {
  std::string at = path;
  for (int hops = 0; hops < 40; ++hops) {  // 40: the kernel's own limit on links in one lookup
    struct stat info {};
    if (is_descriptor_link(at) || lstat(at.c_str(), &info) != 0 || !S_ISLNK(info.st_mode)) return at;
    std::string target(static_cast<size_t>(info.st_size > 0 ? info.st_size : 4096) + 1, '\0');
    const ssize_t n = readlink(at.c_str(), target.data(), target.size());
    if (n < 0) return at;
    target.resize(static_cast<size_t>(n));
    at = !target.empty() && target[0] == '/' ? target : folder_of(at) + "/" + target;
  }
  return at;
}

// Devices, FIFOs, sockets and descriptors (/dev/stdout, /proc/self/fd/1) are written where they
// are: a rename would replace the device or the pipe with a regular file. A regular file under
// /dev/shm is an ordinary file.
bool written_in_place(const std::string& target) {
  struct stat info {};
  if (stat(target.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) return true;
  return is_descriptor_link(target);
}

std::optional<std::string> write_all(int fd, const std::string& text, const std::string& what) {
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return "cannot write " + what + ": " + std::strerror(n < 0 ? errno : EIO);
    written += static_cast<size_t>(n);
  }
  return std::nullopt;
}

// What makes two paths one file: (st_dev, st_ino) for a file that exists, the canonical path (the
// folder's realpath and the name) for one that does not yet.
struct FileIdentity {
  bool exists = false;
  bool regular = false;
  dev_t device = 0;
  ino_t inode = 0;
  std::string canonical;
  bool operator==(const FileIdentity& o) const {
    return exists == o.exists && (exists ? device == o.device && inode == o.inode : canonical == o.canonical);
  }
};

FileIdentity identity_of(const std::string& path) {
  FileIdentity id;
  const std::string target = link_target(path);
  struct stat info {};
  if (stat(target.c_str(), &info) == 0) {
    id.exists = true;
    id.regular = S_ISREG(info.st_mode);
    id.device = info.st_dev;
    id.inode = info.st_ino;
    return id;
  }
  id.regular = true;  // it will be created as one
  const size_t slash = target.find_last_of('/');
  const std::string name = slash == std::string::npos ? target : target.substr(slash + 1);
  char* folder = realpath(folder_of(target).c_str(), nullptr);
  id.canonical = (folder != nullptr ? std::string(folder) : folder_of(target)) + "/" + name;
  std::free(folder);
  return id;
}

// Standard input/output and special files (a FIFO, /dev/null given twice) destroy nothing when they
// are named twice: only regular files, present or to be created, are compared.
bool compared(const NamedPath& p) { return !p.path.empty() && p.path != "-"; }

}  // namespace

void check_output_file(const std::string& path, const std::string& option) {
  if (path.empty()) unwritable(option, "the path is empty");
  if (path == "-") unwritable(option, "- (standard output) is taken by --json only; give a file name");
  const std::string target = link_target(path);
  struct stat info {};
  if (stat(target.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode)) unwritable(option, path + " is a folder; give a file name inside it");
    if (access(target.c_str(), W_OK) != 0)
      unwritable(option, "cannot write " + path + ": " + std::strerror(errno));
  } else if (errno != ENOENT) {
    // A loop of links, a name past NAME_MAX, a file used as a folder: the write at the end would
    // fail after the whole run (a report lost to a path the start could have refused).
    unwritable(option, "cannot write " + path + ": " + std::strerror(errno));
  }
  if (written_in_place(target)) return;
  const std::string folder = folder_of(target);
  check_output_directory(folder, option);
  const size_t slash = target.find_last_of('/');
  const size_t name_bytes = (slash == std::string::npos ? target.size() : target.size() - slash - 1) +
                            std::strlen(kTemporarySuffix);
  const long name_max = pathconf(folder.c_str(), _PC_NAME_MAX);
  if (name_bytes > static_cast<size_t>(name_max > 0 ? name_max : 255))
    unwritable(option, "the file name of " + path + " is too long: with the suffix of the temporary file written " +
                           "beside it (" + kTemporarySuffix + ") it has " + std::to_string(name_bytes) +
                           " bytes, the folder allows " + std::to_string(name_max > 0 ? name_max : 255));
}

void check_output_directory(const std::string& path, const std::string& option) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) unwritable(option, "folder " + path + ": " + std::strerror(errno));
  if (!S_ISDIR(info.st_mode)) unwritable(option, path + " is not a folder");
  if (access(path.c_str(), W_OK | X_OK) != 0)
    unwritable(option, "cannot write into folder " + path + ": " + std::strerror(errno));
}

void check_distinct_paths(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs) {
  std::vector<std::pair<FileIdentity, const NamedPath*>> seen_inputs, seen_outputs;
  for (const NamedPath& in : inputs)
    if (compared(in)) seen_inputs.emplace_back(identity_of(in.path), &in);
  for (const NamedPath& out : outputs) {
    if (!compared(out)) continue;
    const FileIdentity id = identity_of(out.path);
    if (!id.regular) continue;
    for (const auto& [other, in] : seen_inputs)
      if (other == id)
        throw InputError(Error{out.field, -1, "output-is-input",
                                       out.field + " " + out.path + " is the input " + in->path + " (" + in->field +
                                           "); writing it would destroy the input (give another file name)"});
    for (const auto& [other, earlier] : seen_outputs)
      if (other == id)
        throw InputError(Error{out.field, -1, "same-output",
                                       out.field + " " + out.path + " is the same file as " + earlier->path + " (" +
                                           earlier->field + "); one would overwrite the other"});
    seen_outputs.emplace_back(id, &out);
  }
}

std::optional<std::string> write_output_file(const std::string& path, const std::string& text) {
  OutputFileWriter file(path);
  if (auto why = file.open()) return why;
  if (auto why = file.write(text)) return why;
  return file.commit();
}

OutputFileWriter::~OutputFileWriter() {
  if (fd_ >= 0) close(fd_);
  if (!temporary_.empty()) unlink(temporary_.c_str());
}

std::optional<std::string> OutputFileWriter::open() {
  target_ = link_target(path_);
  if (written_in_place(target_)) {
    // O_APPEND: /dev/stdout may be the file stdout was redirected to, holding the human text already.
    fd_ = ::open(target_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd_ < 0) failed_ = "cannot open " + target_ + ": " + std::strerror(errno);
    return failed_;
  }
  std::string temporary = target_ + kTemporarySuffix;
  fd_ = mkstemp(temporary.data());
  if (fd_ < 0) return failed_ = "cannot create a temporary file beside " + target_ + ": " + std::strerror(errno);
  temporary_ = temporary;
  return std::nullopt;
}

std::optional<std::string> OutputFileWriter::write(const std::string& text) {
  if (failed_ || fd_ < 0) return failed_ ? failed_ : (failed_ = "not open");
  return failed_ = write_all(fd_, text, temporary_.empty() ? target_ : temporary_);
}

std::optional<std::string> OutputFileWriter::commit() {
  if (failed_ || fd_ < 0) return failed_ ? failed_ : (failed_ = "not open");
  if (temporary_.empty()) {  // written in place
    const int fd = fd_;
    fd_ = -1;
    if (close(fd) != 0) failed_ = "cannot write " + target_ + ": " + std::strerror(errno);
    return failed_;
  }
  // mkstemp makes the file private (0600); a report is an ordinary file (0666 less the umask).
  const mode_t mask = umask(0);
  umask(mask);
  fchmod(fd_, 0666 & ~mask);
  const int fd = fd_;
  fd_ = -1;
  if (close(fd) != 0 || std::rename(temporary_.c_str(), target_.c_str()) != 0)
    return failed_ = "cannot replace " + target_ + ": " + std::strerror(errno);
  temporary_.clear();  // renamed: nothing to remove
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
    } else if (auto why = write_output_file(json_path_, json_text(report, 2) + "\n")) {
      lost_.push_back("the JSON report " + json_path_ + " (" + *why + ")");
    }
  }
  for (const std::string& what : lost_)
    std::cerr << "qsacheck: could not write " << what << "; the exit code is still the verdict's (" << verdict << ")\n";
  return verdict;
}

}  // namespace qsa::cli
