#pragma once
// Each subcommand adds itself to the CLI11 app; its callback stores the process exit code.

#include <CLI/CLI.hpp>

namespace qsa::cli {

void add_eval_commands(CLI::App& app, int* exit_code);
void add_check_command(CLI::App& app, int* exit_code);
void add_replay_command(CLI::App& app, int* exit_code);
void add_record_expected_command(CLI::App& app, int* exit_code);
void add_simulate_command(CLI::App& app, int* exit_code);
void add_mutants_command(CLI::App& app, int* exit_code);
void add_bench_commands(CLI::App& app, int* exit_code);
void add_report_command(CLI::App& app, int* exit_code);

}  // namespace qsa::cli
