// `qsacheck bench compare BASELINE.json CANDIDATE.json`: the regression gate over two benchmark
// records (docs/bench-records.md). `qsacheck bench import`: converts a GPU run's text logs into
// records marked imported. `qsacheck bench` itself (timing) is bench_run_command.cpp; `bench
// export` is bench_export_command.cpp.

#include <sys/stat.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "output.hpp"
#include "output_file.hpp"
#include "qsa/records/comparison.hpp"
#include "qsa/records/comparison_json.hpp"
#include "qsa/records/comparison_table.hpp"
#include "qsa/records/log_import.hpp"
#include "qsa/records/record.hpp"
#include "qsa/traces/json_reader.hpp"
#include "record_file.hpp"

namespace qsa::cli {
namespace {

struct CompareArgs {
  std::string baseline, candidate;
  double alpha = 0.05;
  double threshold_percent = 5;
  bool markdown = false;
  std::string json;  // --json FILE ("-": stdout, the table then on stderr)
};

std::string label(const records::Record& r) {
  std::string text = r.source;
  const std::string gpu = r.context_text("gpu_name"), commit = r.context_text("qsacheck_commit"),
                    date = r.context_text("date");
  if (!gpu.empty()) text += ", " + gpu;
  if (!date.empty()) text += ", " + date;
  if (!commit.empty()) text += ", commit " + commit;
  return text;
}

int compare(const CompareArgs& args) {
  if (!(args.alpha > 0 && args.alpha < 1))
    return report_error(Error{"--alpha", -1, "out-of-range", "--alpha must lie in (0, 1)"});
  if (!(std::isfinite(args.threshold_percent) && args.threshold_percent >= 0))  // inf would gate nothing
    return report_error(
        Error{"--threshold", -1, "out-of-range", "--threshold must be a finite, non-negative percentage"});
  const records::Record baseline = read_record_file(args.baseline, "baseline");
  const records::Record candidate = read_record_file(args.candidate, "candidate");
  records::CompareOptions options;
  options.alpha = args.alpha;
  options.threshold = args.threshold_percent / 100;
  const records::Comparison comparison = records::compare_records(baseline, candidate, options);
  const records::CompareLabels labels{label(baseline), label(candidate)};
  (args.json == "-" ? std::cerr : std::cout)
      << (args.markdown ? records::comparison_markdown(comparison, labels, options)
                        : records::comparison_text(comparison, labels, options))
      << std::flush;
  if (!args.json.empty()) {
    const std::string text =
        records::comparison_json(comparison, args.baseline, args.candidate, options).dump(2) + "\n";
    if (args.json == "-") {
      std::cout << text << std::flush;
    } else if (auto why = write_output_file(args.json, text)) {
      throw InputError(Error{"--json", -1, "unwritable", "cannot write " + args.json + ": " + *why});
    }
  }
  return comparison.regressions > 0 ? kExitMismatch : kExitOk;
}

struct ImportArgs {
  std::string summary;
  std::vector<std::string> logs;
  std::string commit, name, out_dir;
};

records::TextFile text_file(const std::string& path) { return records::TextFile{path, read_input(path)}; }

int import_run(const ImportArgs& args) {
  // The name is a file name stem inside --out-dir: a separator or ".." would write elsewhere
  // (--name ../../x wrote two folders above it). Checked before anything is read.
  if (args.name.find('/') != std::string::npos || args.name.find("..") != std::string::npos)
    throw InputError(Error{"--name", -1, "not-a-file-name",
                                   "'" + args.name + "' is not a file name stem (no '/', no '..'); the records "
                                   "are written inside --out-dir"});
  std::vector<records::TextFile> logs;
  for (const std::string& path : args.logs) logs.push_back(text_file(path));
  if (args.summary.empty() && logs.empty())
    return report_error(Error{"arguments", -1, "bad-argument", "give --summary, --log or both"});
  const records::TextFile summary = args.summary.empty() ? records::TextFile{} : text_file(args.summary);
  const auto imported = records::import_gpu_run(summary, logs, args.commit);
  std::string stem = args.name;
  if (stem.empty()) {
    const std::string& named = args.summary.empty() ? args.logs.front() : args.summary;
    stem = named.substr(named.find_last_of('/') + 1);
    for (const char* suffix : {"-summary.txt", ".txt", "-tests-bench.log", "-bench.log", ".log"}) {
      const std::string s(suffix);
      if (stem.size() > s.size() && stem.compare(stem.size() - s.size(), s.size(), s) == 0) {
        stem.resize(stem.size() - s.size());
        break;
      }
    }
  }
  const bool created = mkdir(args.out_dir.c_str(), 0755) == 0;
  // Every record's path is checked before the first is written, and the lines are printed once
  // all are: exit 2 is one JSON line alone and leaves no part of the import.
  std::vector<std::string> written;
  std::vector<NamedPath> inputs = {{args.summary, "--summary"}}, outputs;
  try {
    for (const std::string& path : args.logs) inputs.push_back({path, "--log"});
    for (const records::ImportedRecord& r : imported) {
      outputs.push_back({args.out_dir + "/" + stem + "-" + r.binary + ".json", "--out-dir"});
      check_output_file(outputs.back().path, "--out-dir");
    }
    check_distinct_paths(inputs, outputs);
    for (size_t i = 0; i < imported.size(); ++i) {
      const std::string& path = outputs[i].path;
      if (auto why = write_output_file(path, records::record_to_json(imported[i].record).dump(2) + "\n"))
        throw InputError(Error{"--out-dir", -1, "unwritable", *why});
      written.push_back(path);
    }
  } catch (const InputError&) {
    for (const std::string& done : written) std::remove(done.c_str());
    if (created) rmdir(args.out_dir.c_str());
    throw;
  }
  for (size_t i = 0; i < imported.size(); ++i)
    std::cout << "wrote " << outputs[i].path << " (" << imported[i].record.entries.size() << " entries, imported)\n";
  return kExitOk;
}

}  // namespace

void add_bench_commands(CLI::App& app, CommandJob* job) {
  CLI::App* bench = app.add_subcommand(
      "bench",
      "Time a backend's step update on the GPU and write a benchmark record; compare two records;\n"
      "import old text logs. Each shape is checked through the checking engine before it is timed\n"
      "(a disagreement is reported, not timed: exit 1). Exit 3 without a GPU or when a benchmark\n"
      "could not be timed. docs/bench-records.md.\n"
      "Example: qsacheck bench --backend cuda -o cuda.json && qsacheck bench compare base.json cuda.json");
  bench->require_subcommand(0, 1);
  add_bench_run_options(bench, job);

  CLI::App* cmp = bench->add_subcommand(
      "compare",
      "Compare two benchmark records (Google Benchmark JSON, ours or any binary's) benchmark by\n"
      "benchmark: the change of the median time and a two-sided Mann-Whitney U test over the\n"
      "repetitions. A regression is a significant slowdown beyond the threshold. Exit 0 no\n"
      "regression, 1 a regression, 2 bad input (malformed JSON, not a record, an imported record,\n"
      "no common benchmark, too few repetitions). docs/bench-records.md.\n"
      "Example: qsacheck bench compare baseline.json candidate.json --markdown");
  auto c = std::make_shared<CompareArgs>();
  cmp->add_option("baseline", c->baseline, "The baseline record")->required();
  cmp->add_option("candidate", c->candidate, "The candidate record")->required();
  cmp->add_option("--alpha", c->alpha, "Significance level of the U test")->capture_default_str();
  cmp->add_option("--threshold", c->threshold_percent,
                  "Slowdown (percent) beyond which a significant change is a regression")
      ->capture_default_str();
  cmp->add_flag("--markdown", c->markdown, "Print a Markdown table (for a pull request)");
  cmp->add_option("--json", c->json,
                  "Write the comparison as JSON to FILE (docs/json-schema.md); '-': stdout, the table on stderr");
  cmp->callback([=] {
    if (!c->json.empty() && c->json != "-") check_output_file(c->json, "--json");
    // `--json BASELINE` would replace the record it compares (destroyed paths).
    check_distinct_paths({{c->baseline, "baseline"}, {c->candidate, "candidate"}}, {{c->json, "--json"}});
    *job = [=] { return compare(*c); };
  });
  add_bench_export_command(bench, job);

  CLI::App* imp = bench->add_subcommand(
      "import",
      "Convert one GPU run's text logs (run_gpu.sh's summary.txt, the benchmarks' console logs, or\n"
      "both) into records marked imported (aggregates only: compare refuses them, report\n"
      "draws them). Writes OUT_DIR/<name>-<binary>.json.\n"
      "Example: qsacheck bench import --summary records/tests/fixtures/2026-11-30-final-v5-summary.txt "
      "-o records/history");
  auto i = std::make_shared<ImportArgs>();
  imp->add_option("--summary", i->summary, "The run's summary.txt");
  imp->add_option("--log", i->logs,
                  "A log of the same run holding benchmark output in \"=== <name>_bench\" sections (repeatable)");
  imp->add_option("--commit", i->commit, "The commit that ran, when the summary does not name it");
  imp->add_option("--name", i->name, "File name stem (default: the summary's name without -summary.txt)");
  imp->add_option("-o,--out-dir", i->out_dir, "Directory for the records")->required();
  imp->callback([=] { *job = [=] { return import_run(*i); }; });
}

}  // namespace qsa::cli
