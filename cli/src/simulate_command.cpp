// `qsacheck simulate --workload NAME [--seed S] [--steps N] [geometry flags] FILE`: writes a
// simulated scenario.

#include <memory>
#include <sstream>
#include <string>

#include "commands.hpp"
#include "geometry_options.hpp"
#include "number_options.hpp"
#include "output.hpp"
#include "output_file.hpp"
#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/scenario_file.hpp"
#include "qsa/traces/simulator.hpp"
#include "qsa/traces/workloads.hpp"
#include "scenario_description.hpp"

namespace qsa::cli {
namespace {

int simulate(const traces::Workload& model, uint64_t seed, int64_t steps, const std::string& path,
             ReportOutput output) {
  const std::string& workload = model.name;
  const traces::Scenario s = traces::simulate(model, seed, steps);
  std::ostringstream text;
  traces::write_scenario(text, s);
  if (auto why = write_file_atomically(path, text.str()))
    return report_error(Error{"file", -1, "unwritable", *why});  // the file is the whole result
  const traces::Coverage c = traces::coverage_of(s);
  output.human() << "wrote " << path << ": " << s.steps.size() << " steps, " << c.requests << " requests of workload "
                 << workload << " (seed " << seed << ", " << describe(s.config) << "); " << c.rows << " rows, "
                 << c.ring_wraps << " ring wraps, " << c.drafts_rejected << " drafts rejected, " << c.preemptions
                 << " preemptions, " << c.prefix_hits << " prefix hits, " << c.padded_steps << " padded steps"
                 << std::endl;
  return output.finish({{"command", "simulate"},
                        {"file", path},
                        {"workload", workload},
                        {"seed", seed},
                        {"steps", s.steps.size()},
                        {"requests", c.requests},
                        {"rows", c.rows}},
                       kExitOk);
}

}  // namespace

void add_simulate_command(CLI::App& app, CommandJob* job) {
  CLI::App* cmd = app.add_subcommand(
      "simulate",
      "Write the scenario a workload model produces (traces/FORMAT.md, no digests), e.g. to read it\n"
      "or to record a trace: qsacheck simulate --workload prefix-sharing --steps 200 FILE, then\n"
      "qsacheck record-expected FILE. The same workload, seed and steps give the same file.\n"
      "At the model's geometry: qsacheck simulate --preset production --steps 200 FILE");
  auto workload = std::make_shared<std::string>("default");
  auto seed = std::make_shared<std::string>("1");
  auto steps = std::make_shared<std::string>("200");
  auto file = std::make_shared<std::string>();
  auto json_path = std::make_shared<std::string>();
  cmd->add_option("--workload", *workload, "Workload model:\n" + traces::workload_help())->capture_default_str();
  cmd->add_option("--seed", *seed, "Scenario seed, 0 ... 2^64-1")->capture_default_str();
  cmd->add_option("--steps", *steps, "Steps, 1 ... 2^20 (fewer when a bounded workload ends first)")
      ->capture_default_str();
  auto geometry = std::make_shared<GeometryOptions>();
  add_geometry_options(cmd, geometry.get());
  cmd->add_option("--json", *json_path, "Also write a summary as JSON to FILE; - writes it alone on stdout");
  cmd->add_option("file", *file, "Scenario file to write")->required();
  cmd->callback([=] {
    const uint64_t s = parse_seed_option("--seed", *seed);
    const int64_t n = parse_integer_option("--steps", *steps, 1, int64_t{1} << 20);
    const traces::Workload model =
        traces::with_geometry(traces::workload_by_name(*workload), parse_geometry_options(*geometry));
    check_output_file(*file, "file");
    ReportOutput output(*json_path);
    output.check();
    *job = [=] { return simulate(model, s, n, *file, output); };
  });
}

}  // namespace qsa::cli
