// `qsacheck replay [--backend NAME] FILE...`: re-runs scenario files (reproducers, recorded traces)
// step by step with every check of the scenario runner. The first line names what is replayed.

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "backend_choice.hpp"
#include "commands.hpp"
#include "output.hpp"
#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/scenario_file.hpp"
#include "qsa/traces/scenario_runner.hpp"
#include "qsa/traces/shrinker.hpp"

namespace qsa::cli {
namespace {

std::string describe(const traces::ScenarioConfig& c) {
  return "C=" + std::to_string(c.compress_ratio) + " B=" + std::to_string(c.block_size) + " drafts=" + std::to_string(c.num_speculative_tokens) +
         " R=" + std::to_string(c.ring_capacity) + " D=" + std::to_string(c.head_dim) + " rd=" + std::to_string(c.rotary_dim) +
         " HQ=" + std::to_string(c.num_heads) + (c.mrope ? " MRoPE" : "") + " " + to_string(c.store_dtype);
}

int replay(const std::vector<std::string>& files, const std::string& backend_name) {
  Error error;
  auto backend = open_backend(backend_name, &error);
  if (!backend) return report_error(error);
  int exit_code = kExitOk;
  for (const std::string& path : files) {
    const traces::ScenarioFile file = traces::read_scenario_file(path);
    const traces::Scenario& s = file.scenario;
    std::cout << "replaying " << path << ": " << s.steps.size() << " steps, " << traces::requests_of(s).size() << " requests of workload "
              << s.config.workload << " (seed " << s.config.seed << ", " << describe(s.config) << ") on " << backend_name << std::endl;
    traces::ScenarioRunner runner(s.config, *backend);
    std::optional<traces::RunFailure> failure;
    for (const traces::StepRecord& step : s.steps)
      if ((failure = runner.step(step))) break;
    if (failure) {
      std::cout << "FAIL " << traces::to_string(*failure) << std::endl;
      exit_code = failure->invalid_scenario ? kExitUsage : kExitMismatch;
      continue;
    }
    std::cout << "passed: " << s.steps.size() << " steps" << (runner.step_update_supported() ? "" : " (metadata only: the backend has no step update)")
              << std::endl;
    if (!runner.step_update_supported() && exit_code == kExitOk) exit_code = kExitIncomplete;
  }
  return exit_code;
}

}  // namespace

void add_replay_command(CLI::App& app, int* exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "replay",
      "Re-run scenario files (traces/FORMAT.md) step by step with every check: reproducers written\n"
      "by `qsacheck check`, recorded traces. Exit 0 all passed, 1 a check failed, 2 a file is\n"
      "unreadable or contradicts SPEC 7, 3 passed but the backend has no step update.\n"
      "Example: qsacheck replay --backend reference qsacheck-repro-cuda-default-1000003.scenario");
  auto files = std::make_shared<std::vector<std::string>>();
  auto backend = std::make_shared<std::string>("reference");
  cmd->add_option("files", *files, "Scenario files")->required()->check(CLI::ExistingFile);
  cmd->add_option("--backend", *backend, "Backend to replay on")->capture_default_str();
  cmd->callback([=] { *exit_code = replay(*files, *backend); });
}

}  // namespace qsa::cli
