// `qsacheck record-expected FILE...`: rewrites the files' digests from the reference. Every file
// is read and checked first; each is replaced atomically (a temporary file, then a rename).

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "backend_choice.hpp"
#include "commands.hpp"
#include "output.hpp"
#include "output_file.hpp"
#include "qsa/engine/scenario_runner.hpp"
#include "qsa/engine/step_loop.hpp"
#include "scenario_files.hpp"

namespace qsa::cli {
namespace {

// Replays each file on the reference with every check and rewrites it with the digest of every
// step. A file that fails a check is left untouched.
int record_expected(const std::vector<std::string>& paths, ReportOutput output) {
  Error error;
  auto reference = open_backend("reference", &error);
  if (!reference) return report_error(error);
  const std::vector<CheckedScenarioFile> files = check_scenario_files(paths);
  std::ostream& out = output.human();
  nlohmann::json results = nlohmann::json::array();
  int exit_code = kExitOk;
  for (const CheckedScenarioFile& checked : files) {
    // The file is rewritten whole, so it is held whole (recorded traces are short).
    const traces::ScenarioFile file = traces::read_scenario(*checked.open());
    const traces::Scenario& s = file.scenario;
    const std::string& path = checked.path;
    engine::RunOptions options;
    options.compute_digests = true;
    engine::ScenarioRunner runner(s.config, *reference, options);
    std::vector<traces::StepDigest> digests;
    engine::StepObserver observer;
    observer.after_step = [&](int64_t, const traces::StepRecord&, const engine::ScenarioRunner& r, bool failed) {
      if (!failed) digests.push_back(r.last_digest());
    };
    const std::optional<engine::RunFailure> failure = engine::run_steps(runner, s.steps, observer).failure;
    if (failure) {
      out << "FAIL " << path << ": " << engine::to_string(*failure) << " (file left unchanged)" << std::endl;
      exit_code = failure->invalid_scenario ? kExitUsage : kExitMismatch;
      results.push_back({{"file", path}, {"recorded", false}, {"failure", engine::to_string(*failure)}});
      continue;
    }
    size_t changed = 0;
    for (size_t i = 0; i < digests.size(); ++i)
      changed += i >= file.digests.size() || file.digests[i] != digests[i] ? 1 : 0;
    std::ostringstream text;
    traces::write_scenario(text, s, digests);
    if (auto why = write_output_file(path, text.str())) {
      output.lost(path + " (" + *why + ")");
      if (exit_code == kExitOk) exit_code = kExitIncomplete;
      results.push_back({{"file", path}, {"recorded", false}, {"failure", *why}});
      continue;
    }
    out << "recorded " << path << ": " << digests.size() << " step digests from the reference (" << changed
        << " changed)" << std::endl;
    results.push_back({{"file", path}, {"recorded", true}, {"steps", digests.size()}, {"changed", changed}});
  }
  return output.finish({{"schema_version", 1}, {"command", "record-expected"}, {"exit_code", exit_code}, {"files", results}}, exit_code);
}

}  // namespace

void add_record_expected_command(CLI::App& app, CommandJob* job) {
  CLI::App* cmd = app.add_subcommand(
      "record-expected",
      "Rewrite the per-step digests of scenario files from the reference: each file is replayed on\n"
      "the reference with every check, then rewritten in place with the digest of every step's\n"
      "outputs (traces/FORMAT.md, \"Digests\"). Run it deliberately after a change to the reference,\n"
      "the content functions or a recorded scenario, and review the diff: `qsacheck replay` and the\n"
      "`trace` tests compare against these digests. A file that fails a check is left unchanged.\n"
      "Exit 0 all recorded, 1 a check failed, 2 a file is unreadable or contradicts SPEC 7 (nothing is\n"
      "rewritten), 3 a file could not be rewritten.\n"
      "Example: qsacheck record-expected traces/recorded/*.scenario");
  auto files = std::make_shared<std::vector<std::string>>();
  auto json_path = std::make_shared<std::string>();
  cmd->add_option("files", *files, "Scenario files to rewrite")->required();
  cmd->add_option("--json", *json_path, "Also write the result as JSON to FILE; - writes it alone on stdout");
  cmd->callback([=] {
    ReportOutput output(*json_path);
    output.check();
    // The files are rewritten in place on purpose: they are this command's outputs, so --json
    // must be none of them, and a file given twice would be rewritten twice.
    std::vector<NamedPath> outputs;
    for (const std::string& path : *files) {
      check_output_file(path, "files");
      outputs.push_back({path, "files"});
    }
    outputs.push_back({*json_path, "--json"});
    check_distinct_paths({}, outputs);
    *job = [=] { return record_expected(*files, output); };
  });
}

}  // namespace qsa::cli
