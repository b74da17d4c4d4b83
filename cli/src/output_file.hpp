#pragma once
// Files a command writes (reports, reproducers): checked before the work starts (never one of the
// inputs or another output), written atomically (a temporary file beside the target, then a
// rename; special files in place) at the end, and a failed write
// never changes the verdict's exit code: it is said on stderr and in the JSON report.

#include <cstdio>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace qsa::cli {

/// Throws InputError {field `option`, rule "unwritable"} unless a file can be created or replaced
/// at `path`: its folder exists and is writable, and the path is not a folder, not empty and not
/// "-" (standard output is --json's alone). Links are followed. Writes nothing.
void check_output_file(const std::string& path, const std::string& option);

/// Throws InputError {field `option`, rule "unwritable"} unless `path` is a writable folder.
void check_output_directory(const std::string& path, const std::string& option);

/// The one way a command writes a file. A regular file, or a new one, through a temporary
/// file beside it and a rename, so a reader never sees half a file; through a symbolic link, its
/// target (the link stays); a FIFO, a device or a path under /dev or /proc (/dev/stdout) in place,
/// appended to, since a rename would replace it with a regular file. Returns why it failed, or nullopt.
std::optional<std::string> write_output_file(const std::string& path, const std::string& text);

/// write_output_file() in pieces, for an output too long to hold (simulate's scenario file):
/// open() makes the temporary file (or opens a special file in place), write() appends,
/// commit() renames it over the target. A writer destroyed without commit() removes its
/// temporary file, so a failed or stopped command leaves the target as it was.
class OutputFileWriter {
 public:
  explicit OutputFileWriter(std::string path) : path_(std::move(path)) {}
  ~OutputFileWriter();
  OutputFileWriter(const OutputFileWriter&) = delete;
  OutputFileWriter& operator=(const OutputFileWriter&) = delete;
  /// Each returns why it failed, or nullopt; after a failure the others do nothing and say so.
  std::optional<std::string> open();
  std::optional<std::string> write(const std::string& text);
  std::optional<std::string> commit();

 private:
  std::string path_, target_, temporary_;
  int fd_ = -1;
  std::optional<std::string> failed_;
};

/// A path a command reads or writes and the option or argument that named it (`--json`, `files`).
struct NamedPath {
  std::string path;
  std::string field;
};

/// Throws InputError {field = the output's option, rule "output-is-input" or "same-output"} when an
/// output would overwrite one of the inputs or another output: existing files compared by
/// (st_dev, st_ino), new ones by their canonical path, links followed. "-", FIFOs and devices are
/// left out (nothing is destroyed by writing them). Checked before any work, with the other checks.
void check_distinct_paths(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs);

/// Where a command's report goes. Without --json: the human text on stdout. With --json PATH: the
/// text on stdout and the JSON report to PATH at the end. With --json -: the JSON alone on stdout,
/// the text on stderr.
class ReportOutput {
 public:
  explicit ReportOutput(std::string json_path = "") : json_path_(std::move(json_path)) {}

  /// Checks the JSON path before any work (see check_output_file).
  void check() const;
  bool json_on_stdout() const { return json_path_ == "-"; }
  std::FILE* human_file() const { return json_on_stdout() ? stderr : stdout; }
  std::ostream& human() const;

  /// Remembers a file the command meant to write but could not (reported by finish()).
  void lost(const std::string& what) { lost_.push_back(what); }
  const std::vector<std::string>& lost_outputs() const { return lost_; }

  /// Writes the JSON report (when asked for) with "unwritten_outputs" listing what could not be
  /// written, says on stderr what was lost, and returns `verdict` unchanged.
  int finish(nlohmann::json report, int verdict);

 private:
  std::string json_path_;
  std::vector<std::string> lost_;
};

}  // namespace qsa::cli
