#include "command_line.hpp"

#include <cstdio>
#include <new>
#include <string>

#include <CLI/CLI.hpp>

#include "backend_choice.hpp"
#include "commands.hpp"
#include "help_types.hpp"
#include "output.hpp"
#include "qsa/backends/builtin.hpp"
#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/limits.hpp"
#include "version.hpp"

namespace qsa::cli {
namespace {

std::string version_text() {
  return std::string("qsacheck ") + tool_version() + " (SPEC version " + spec_version() + ", commit " + git_commit() +
         ", CUDA support " + (backends::cuda_support_built() ? "built" : "not built") + ")";
}

std::string subcommand_names(const CLI::App& app) {
  std::string names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    names += (names.empty() ? "" : ", ") + sub->get_name();
  return names;
}

// CLI11 answers an unknown command word with "A subcommand is required" or "not expected": name
// the word and the commands there are instead.
void reject_unknown_command(CLI::App& app, int argc, const char* const* argv) {
  CLI::App* current = &app;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word[0] == '-') return;
    CLI::App* next = nullptr;
    for (CLI::App* sub : current->get_subcommands([](const CLI::App*) { return true; }))
      if (sub->get_name() == word) next = sub;
    if (next == nullptr) {
      if (current->get_require_subcommand_min() == 0) return;  // a positional argument
      const std::string where = current == &app ? "qsacheck" : "qsacheck " + current->get_name();
      throw InputError(Error{"command", i, "unknown-command",
                                     "'" + word + "' is not a command of " + where + " (commands: " +
                                         subcommand_names(*current) + "; " + where + " --help lists them)"});
    }
    current = next;
  }
}

// An empty value means nothing to any option (an empty path would be taken as a file name or
// silently as "not given", `--workload ''` as no workload at all), so none takes one.
void refuse_empty_values(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    if (option->get_type_size_max() == 0) continue;  // a flag
    std::string name = option->get_name();  // --long, -s or the positional's name; "" when hidden
    if (name.empty()) name = option->get_lnames().empty() ? "arguments" : "--" + option->get_lnames().front();
    option->each([name](const std::string& value) {
      if (value.empty())
        throw InputError(Error{name, -1, "empty-value", name + " was given an empty value"});
    });
  }
  for (CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) refuse_empty_values(*sub);
}

}  // namespace

void define_command_line(CLI::App& app, CommandJob* job) {
  app.description(
      "qsacheck: checks QSA side-cache implementations (metadata, ring, compressed cache) against\n"
      "the contract in docs/spec.md, bit for bit. Start with `qsacheck check`; `qsacheck eval` runs one\n"
      "operation on JSON input; `--backend plugin:PATH.so` checks a kernel built outside this tree.\n"
      "Exit codes: 0 agreement; 1 mismatch; 2 bad usage or input (one JSON\n"
      "line on stdout); 3 what ran passed but something did not run (or the run was stopped).\n"
      "Limits: QSA_MAX_INPUT_BYTES (default 64 MiB per input), QSA_MAX_CACHE_BYTES (default 2 GiB).");
  app.name("qsacheck");
  app.set_version_flag("--version", version_text(), "Print the tool version, SPEC version, commit and CUDA support");
  app.require_subcommand(1);
  app.fallthrough(false);
  add_eval_commands(app, job);
  add_check_command(app, job);
  add_replay_command(app, job);
  add_record_expected_command(app, job);
  add_simulate_command(app, job);
  add_mutants_command(app, job);
  add_bench_commands(app, job);
  add_report_command(app, job);
  add_backends_command(app, job);
  add_merge_command(app, job);
  add_input_space_command(app, job);
  name_value_types(app);
}

int run_command_line(int argc, const char* const* argv, bool parse_only) {
  try {
    CLI::App app;
    CommandJob job;
    define_command_line(app, &job);
    refuse_empty_values(app);

    // The limits are read once up front, so a malformed variable is bad usage before any work.
    traces::max_input_bytes();
    traces::max_cache_bytes();
    if (argc <= 1 && !parse_only) {
      // No command at all: a person typing `qsacheck` gets the usage on stderr; stdout keeps
      // the one JSON line of every exit 2 (docs/json-schema.md, "Errors").
      std::fputs(app.help().c_str(), stderr);
      return report_error(Error{"command", -1, "missing-command",
                                "no command given (commands: " + subcommand_names(app) + "; qsacheck --help)"});
    }
    try {
      reject_unknown_command(app, argc, argv);
      app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
      return parse_only ? kExitOk : app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
      return parse_only ? kExitOk : app.exit(e);
    } catch (const CLI::CallForVersion& e) {
      return parse_only ? kExitOk : app.exit(e);
    } catch (const CLI::ConversionError& e) {
      // "Could not convert: --alpha = x": the field is the option, as for every other bad value.
      const std::string what = e.what();
      const size_t at = what.find("--"), end = what.find(' ', at);
      const std::string option = at == std::string::npos ? "arguments" : what.substr(at, end - at);
      return report_error(Error{option, -1, "wrong-type", what});
    } catch (const CLI::ParseError& e) {
      return report_error(Error{"arguments", -1, "bad-argument", e.what()});
    }
    if (parse_only || !job) return kExitOk;
    return job();
  } catch (const InputError& e) {
    return report_error(e.error());
  } catch (const std::bad_alloc&) {
    // A cache reservation the machine refuses (cache_bytes.cpp's mmap) is thrown, not new's.
    return report_error(Error{"memory", -1, "out-of-memory", kOutOfMemoryMessage});
  } catch (const std::exception& e) {
    return report_error(Error{"internal", -1, "exception", e.what()});
  }
}

}  // namespace qsa::cli
