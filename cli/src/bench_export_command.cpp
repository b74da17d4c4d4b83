// `qsacheck bench export RECORD.json --format github-action-benchmark|bencher|bmf [-o FILE]`: the
// record as dashboards read it, one entry per benchmark holding its median, named without the run
// options (records::consumer_export, records::bencher_metric_format; docs/bench-records.md, "What
// consumers read").

#include <iostream>
#include <memory>
#include <string>

#include "commands.hpp"
#include "output.hpp"
#include "output_file.hpp"
#include "qsa/records/consumer_export.hpp"
#include "qsa/records/record.hpp"
#include "qsa/traces/json_reader.hpp"
#include "record_file.hpp"

namespace qsa::cli {
namespace {

struct ExportArgs {
  std::string record, format, out;
};

int export_record(const ExportArgs& args) {
  const records::Record record = read_record_file(args.record, "record");
  // github-action-benchmark (tool: googlecpp) and Bencher's cpp_google adapter read the same reduced
  // Google Benchmark file; Bencher's json adapter reads its own metric format (BMF).
  const std::string text =
      (args.format == "bmf" ? records::bencher_metric_format(record) : records::consumer_export(record)).dump(2) + "\n";
  if (args.out.empty() || args.out == "-") {
    std::cout << text << std::flush;
  } else if (auto why = write_output_file(args.out, text)) {
    throw InputError(Error{"output", -1, "unwritable", "cannot write " + args.out + ": " + *why});
  }
  return kExitOk;
}

}  // namespace

void add_bench_export_command(CLI::App* bench, CommandJob* job) {
  CLI::App* exp = bench->add_subcommand(
      "export",
      "Write a benchmark record as dashboards read it: one entry per benchmark holding its median\n"
      "(no repetitions, no stddev or cv aggregates, which github-action-benchmark would alert on as\n"
      "benchmarks), named without the run options (a change of --iterations keeps the series), with\n"
      "every context key Bencher's cpp_google adapter needs: Google Benchmark JSON for\n"
      "github-action-benchmark and bencher; bmf writes the Bencher Metric Format (median, fastest\n"
      "and slowest repetition in ns) for `bencher run --adapter json`.\n"
      "docs/bench-records.md.\n"
      "Example: qsacheck bench export cuda.json --format github-action-benchmark -o gab.json");
  auto e = std::make_shared<ExportArgs>();
  exp->add_option("record", e->record, "The benchmark record")->required();
  exp->add_option("--format", e->format, "The consumer: github-action-benchmark (tool googlecpp), bencher (adapter cpp_google) or bmf\n"
                  "(Bencher Metric Format, adapter json)")
      ->required()
      ->check(CLI::IsMember({"github-action-benchmark", "bencher", "bmf"}));
  exp->add_option("-o,--output", e->out, "The file to write (default: stdout)");
  exp->callback([=] {
    if (!e->out.empty() && e->out != "-") check_output_file(e->out, "--output");
    // `-o RECORD` would replace the record it exports (destroyed paths).
    check_distinct_paths({{e->record, "record"}}, {{e->out, "--output"}});
    *job = [=] { return export_record(*e); };
  });
}

}  // namespace qsa::cli
