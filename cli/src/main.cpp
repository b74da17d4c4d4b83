// qsacheck: verifies implementations of the QSA side caches against the contract (docs/spec.md).
// Exit codes: 0 agreement, 1 mismatch or broken invariant, 2 bad usage or bad input, 3 what ran
// passed but something could not run (e.g. a backend without a step update).

#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "backend_choice.hpp"
#include "commands.hpp"
#include "output.hpp"
#include "qsa/backends/builtin.hpp"
#include "qsa/traces/json_reader.hpp"
#include "version.hpp"

namespace {

std::string version_text() {
  return std::string("qsacheck ") + qsa::cli::tool_version() + " (SPEC version " + qsa::cli::spec_version() +
         ", commit " + qsa::cli::git_commit() + ", CUDA support " +
         (qsa::backends::cuda_support_built() ? "built" : "not built") + ")";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "qsacheck: checks QSA side-cache implementations (metadata, ring, compressed cache) against\n"
      "the contract in docs/spec.md, bit for bit. Start with `qsacheck check`; `qsacheck eval` runs\n"
      "one operation on JSON input. Exit codes: 0 agreement, 1 mismatch, 2 bad usage or input,\n"
      "3 what ran passed but something could not run (e.g. a backend without a step update).",
      "qsacheck"};
  app.set_version_flag("--version", version_text(), "Print the tool version, SPEC version, commit and CUDA support");
  app.require_subcommand(1);
  app.fallthrough(false);

  int exit_code = qsa::cli::kExitOk;
  qsa::cli::add_eval_commands(app, &exit_code);
  qsa::cli::add_check_command(app, &exit_code);
  qsa::cli::add_replay_command(app, &exit_code);
  qsa::cli::add_record_expected_command(app, &exit_code);
  qsa::cli::add_simulate_command(app, &exit_code);
  qsa::cli::add_mutants_command(app, &exit_code);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return qsa::cli::report_error(qsa::Error{"arguments", -1, "bad-argument", e.what()});
  } catch (const qsa::traces::InputError& e) {
    return qsa::cli::report_error(e.error());
  } catch (const std::bad_alloc&) {
    return qsa::cli::report_error(qsa::Error{"input", -1, "too-large", "out of memory while reading the input"});
  } catch (const std::exception& e) {
    return qsa::cli::report_error(qsa::Error{"internal", -1, "exception", e.what()});
  }
  return exit_code;
}
