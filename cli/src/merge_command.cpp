// `qsacheck merge REPORT.json...`: the JSON reports of a sharded campaign (`qsacheck check --shard
// K/N --json FILE` on N machines) joined into the report of the whole campaign. Exit 1 if a shard
// found a disagreement, 0 if not (3 if something did not run), 2 if the reports are not the
// shards of one campaign (missing, duplicated, other settings or versions) or not reports at all.

#include <chrono>
#include <memory>

#include "campaign_names.hpp"
#include "check_summary.hpp"
#include "commands.hpp"
#include "junit_report.hpp"
#include "output.hpp"
#include "output_file.hpp"
#include "qsa/backends/cuda_kernel_path.hpp"
#include "qsa/engine/check_report_reader.hpp"
#include "qsa/engine/merge_reports.hpp"
#include "qsa/traces/json_reader.hpp"

namespace qsa::cli {
namespace {

struct MergeArguments {
  std::vector<std::string> files;
  std::string json_path;
  std::string junit_path;
};

std::vector<ShardReport> read_reports(const std::vector<std::string>& files) {
  std::vector<ShardReport> shards;
  for (size_t i = 0; i < files.size(); ++i) {
    try {
      shards.push_back(ShardReport{files[i], engine::report_from_json(traces::parse_json(read_input(files[i])), "")});
    } catch (const InputError& e) {
      Error error = e.error();
      if (error.field == "input" && error.rule != "malformed-json") error.index = static_cast<int64_t>(i);
      error.message = files[i] + " (file " + std::to_string(i) + "): " + error.message +
                      " (merge reads the JSON reports of qsacheck check --shard K/N --json FILE)";
      throw InputError(error);
    }
  }
  return shards;
}

int run_merge(const MergeArguments& a) {
  const auto start = std::chrono::steady_clock::now();
  ReportOutput output(a.json_path);
  CheckReport merged = engine::merge_reports(read_reports(a.files));  // exit 2 before anything is printed
  merged.all_kernel_paths = backends::cuda_step_kernel_paths();  // "not reached" in the backends' order
  merged.all_grids = backends::cuda_step_grids();
  const nlohmann::json shards = merged.run.merged_from;
  merged.run = engine::run_facts_now();
  merged.run.merged_from = shards;
  merged.run.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(output.human_file(), "merged %zu shard report(s) of campaign %s\n", a.files.size(),
               merged.campaign.settings_hash.c_str());
  print_report(merged, output.human_file());
  if (!a.junit_path.empty()) write_junit(a.junit_path, check_junit(merged), &output);
  return output.finish(engine::report_to_json(merged), merged.exit_code());
}

}  // namespace

void add_merge_command(CLI::App& app, CommandJob* job) {
  auto a = std::make_shared<MergeArguments>();
  CLI::App* cmd = app.add_subcommand(
      "merge",
      "Join the JSON reports of a sharded campaign into the report of the whole campaign: rows,\n"
      "coverage and findings summed, findings in campaign order under the campaign's --max-findings,\n"
      "every job once. The result equals the unsharded `qsacheck check --keep-going` report once the\n"
      "\"run\" object and every \"seconds\" and \"device\" field are removed (docs/scale-out.md).\n"
      "  for k in 1 2 3 4; do qsacheck check --shard $k/4 --out repro --json shard-$k.json; done\n"
      "  qsacheck merge shard-*.json --json campaign.json\n"
      "Exit 0: every shard passed; 1: a shard found a disagreement; 2: the files are not the shards of\n"
      "one campaign (a shard missing or given twice, other settings, another qsacheck or SPEC version)\n"
      "or not reports (one JSON line on stdout); 3: a shard was stopped or something did not run.");
  cmd->add_option("files", a->files, "The shards' reports (qsacheck check --shard K/N --json FILE), any order")
      ->required();
  cmd->add_option("-o,--json", a->json_path,
                  "Write the merged report as JSON to FILE (atomically); - writes it alone on stdout and the\n"
                  "table on stderr");
  cmd->add_option("--junit", a->junit_path, "Also write the merged result as JUnit XML to FILE");
  cmd->callback([=] {
    ReportOutput(a->json_path).check();
    if (!a->junit_path.empty()) check_output_file(a->junit_path, "--junit");
    std::vector<NamedPath> inputs;
    for (const std::string& f : a->files) inputs.push_back({f, "files"});
    check_distinct_paths(inputs, {{a->json_path, "--json"}, {a->junit_path, "--junit"}});
    *job = [a] { return run_merge(*a); };
  });
}

}  // namespace qsa::cli
