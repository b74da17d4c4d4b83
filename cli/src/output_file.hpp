#pragma once
// Files a command writes (reports, reproducers): checked before the work starts, written
// atomically (a temporary file beside the target, then a rename) at the end, and a failed write
// never changes the verdict's exit code: it is said on stderr and in the JSON report.

#include <cstdio>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace qsa::cli {

/// Throws InputError {field `option`, rule "unwritable"} unless a file can be created or replaced
/// at `path`: its folder exists and is writable, and the path is not a folder. Writes nothing.
void check_output_file(const std::string& path, const std::string& option);

/// Throws InputError {field `option`, rule "unwritable"} unless `path` is a writable folder.
void check_output_directory(const std::string& path, const std::string& option);

/// Writes `text` to `path` through a temporary file and a rename; a reader never sees half a file.
/// Returns why it failed, or nullopt.
std::optional<std::string> write_file_atomically(const std::string& path, const std::string& text);

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
