#pragma once
// Each subcommand adds itself to the CLI11 app. Its callback validates every argument (numbers,
// names, output paths: nothing is read, written or run) and then stores the work as a job;
// run_command_line() runs it unless asked to parse only.

#include <functional>

#include <CLI/CLI.hpp>

namespace qsa::cli {

/// The work of the parsed command; returns the exit code.
using CommandJob = std::function<int()>;

void add_eval_commands(CLI::App& app, CommandJob* job);
void add_check_command(CLI::App& app, CommandJob* job);
void add_replay_command(CLI::App& app, CommandJob* job);
void add_record_expected_command(CLI::App& app, CommandJob* job);
void add_simulate_command(CLI::App& app, CommandJob* job);
void add_mutants_command(CLI::App& app, CommandJob* job);
void add_bench_commands(CLI::App& app, CommandJob* job);
/// The options of `qsacheck bench` itself (timing), used when no subcommand of bench is given.
void add_bench_run_options(CLI::App* bench, CommandJob* job);
/// `qsacheck bench export` (bench_export_command.cpp).
void add_bench_export_command(CLI::App* bench, CommandJob* job);
void add_report_command(CLI::App& app, CommandJob* job);
void add_backends_command(CLI::App& app, CommandJob* job);
void add_merge_command(CLI::App& app, CommandJob* job);
void add_input_space_command(CLI::App& app, CommandJob* job);

}  // namespace qsa::cli
