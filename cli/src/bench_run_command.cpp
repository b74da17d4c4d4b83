// `qsacheck bench [--backend NAME] [--shapes SET] [-o RECORD.json]`: times a backend's step update on
// the GPU over a shape set and writes one benchmark record (docs/bench-records.md). Each shape is
// checked once through the checking engine first; a backend that disagrees is reported, not timed.

#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backend_choice.hpp"
#include "bench_record.hpp"
#include "commands.hpp"
#include "float_tolerance_option.hpp"
#include "number_options.hpp"
#include "output.hpp"
#include "output_file.hpp"
#include "qsa/backends/builtin.hpp"
#include "qsa/backends/plugin_backend.hpp"
#include "qsa/backends/plugin_library.hpp"
#include "qsa/records/repetitions.hpp"
#include "qsa/timing/backend_benchmarks.hpp"
#include "qsa/timing/gpu_environment.hpp"
#include "qsa/traces/json_reader.hpp"

namespace qsa::cli {
namespace {

struct BenchArgs {
  std::string backend = "cuda", label, against, shapes = "standard", out;
  std::string repetitions = "9", iterations = "30", float_tolerance = "exact";
  bool no_references = false;
};

struct BenchPlan {
  BenchArgs args;
  std::vector<timing::StepShape> shapes;
  int repetitions = 9, iterations = 30;
  traces::FloatTolerance tolerance;
};

// The backend's name inside benchmark names: "cuda", a plugin's own name (without the variant, so
// a variant's record compares with its plugin's), else the name with '/' and ':' made '-'.
std::string default_label(Backend& backend) {
  if (auto* plugin = dynamic_cast<backends::PluginBackend*>(&backend); plugin && plugin->library())
    return plugin->library()->table().name;
  std::string label = backend.name();
  for (char& ch : label)
    if (ch == '/' || ch == ':' || ch == '#') ch = '-';
  return label;
}

std::string command_line(const BenchArgs& a) {
  std::string text = "qsacheck bench --backend " + a.backend + " --shapes " + a.shapes + " --repetitions " +
                     a.repetitions + " --iterations " + a.iterations;
  if (!a.label.empty()) text += " --label " + a.label;
  if (!a.against.empty()) text += " --against " + a.against;
  if (a.float_tolerance != "exact") text += " --float-tolerance " + a.float_tolerance;
  if (a.no_references) text += " --no-references";
  if (!a.out.empty()) text += " -o " + a.out;
  return text;
}

BenchPlan validated(const BenchArgs& a) {
  BenchPlan plan;
  plan.args = a;
  plan.repetitions = static_cast<int>(parse_integer_option("--repetitions", a.repetitions, 2, 1000));
  plan.iterations = static_cast<int>(parse_integer_option("--iterations", a.iterations, 1, 100000));
  Error error;
  if (timing::parse_step_shapes(a.shapes, &plan.shapes, &error) != Status::kOk) throw InputError(error);
  if (!parse_float_tolerance_flag(a.float_tolerance, &plan.tolerance, &error)) throw InputError(error);
  // A backend that cannot run here (no GPU, or "cuda" in a build without CUDA) is the run's to report
  // (exit 3); a name nobody knows is bad input.
  using Named = std::pair<const char*, std::string>;
  for (const auto& [option, name] : {Named{"--backend", a.backend}, Named{"--against", a.against}}) {
    if (name.empty() || (name == "cuda" && !backends::cuda_support_built())) continue;
    if (!open_backend(name, &error) && error.rule != "unavailable") throw InputError(error);
    // Only "cuda" and plugins have a step update on the GPU (backends/src/device_step.cpp): any other
    // backend is bad usage here, on any machine, not a GPU missing (--backend reference
    // said "no GPU").
    if (name != "cuda" && name.rfind("plugin:", 0) != 0)
      throw InputError(Error{option, -1, "not-timeable",
                                     name + " has no step update on the GPU to time (timed: \"cuda\" and CUDA "
                                            "plugins, plugin:PATH.so, that declare "
                                            "QSA_PLUGIN_FEATURE_GRAPH_CAPTURABLE)"});
  }
  if (!a.out.empty()) check_output_file(a.out, "--out");
  return plan;
}

std::string cell(double value, const char* format) {
  if (value < 0) return "-";
  char text[32];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

const timing::Measurement* find(const std::vector<timing::Measurement>& all, const std::string& name) {
  for (const timing::Measurement& m : all)
    if (m.name == name) return &m;
  return nullptr;
}

double micros_of(const std::vector<timing::Measurement>& all, const std::string& name) {
  const timing::Measurement* m = find(all, name);
  return m == nullptr ? -1 : median_micros(*m);
}

// The table for people: per shape the median time, the ratios, and why a shape was not timed.
void print_table(const BenchPlan& plan, const std::string& label, const std::string& against_label,
                 const std::vector<timing::Measurement>& all) {
  const double floor = micros_of(all, timing::kFloorName);
  double ceiling = -1;
  for (const char* copy : {timing::kCopyName, timing::kCopyKernelName})
    if (const timing::Measurement* m = find(all, copy); m && !m->seconds.empty())
      ceiling = std::max(ceiling, static_cast<double>(m->bytes_per_launch) / records::median_of(m->seconds));
  std::printf(
      "\nmedian time per step update (us) over %d repetitions of %d graph replays; floor %s us, copy ceiling %s TB/s\n",
      plan.repetitions, plan.iterations, cell(floor, "%.2f").c_str(), cell(ceiling / 1e12, "%.2f").c_str());
  std::printf("%-56s %9s %9s %8s %8s %9s%s\n", "shape", label.c_str(), "baseline", "x base", "x floor", "of copy",
              against_label.empty() ? "" : ("  " + against_label + " (x)").c_str());
  for (const timing::StepShape& shape : plan.shapes) {
    const std::string suffix = timing::shape_suffix(shape);
    const timing::Measurement* ours = find(all, "BM_StepUpdate/" + label + "/" + suffix);
    const double us = ours ? median_micros(*ours) : -1;
    const double base = micros_of(all, "BM_StepUpdate/baseline/" + suffix);
    const double bytes_per_second = us > 0 ? static_cast<double>(ours->bytes_per_launch) / (us * 1e-6) : -1;
    std::string other;
    if (!against_label.empty()) {
      const double them = micros_of(all, "BM_StepUpdate/" + against_label + "/" + suffix);
      other = "  " + cell(them, "%.2f") + " (" + cell(us > 0 && them > 0 ? them / us : -1, "%.2f") + ")";
    }
    std::printf("%-56s %9s %9s %8s %8s %9s%s\n", suffix.c_str(), cell(us, "%.2f").c_str(), cell(base, "%.2f").c_str(),
                cell(us > 0 && base > 0 ? base / us : -1, "%.2f").c_str(),
                cell(us > 0 && floor > 0 ? us / floor : -1, "%.1f").c_str(),
                cell(bytes_per_second > 0 && ceiling > 0 ? 100 * bytes_per_second / ceiling : -1, "%.0f%%").c_str(),
                other.c_str());
    if (ours && !ours->not_timed.empty()) std::printf("    not timed: %s\n", ours->not_timed.c_str());
  }
  std::printf(
      "(x base: the unfused baseline's time over ours; x floor: ours over the empty-kernel floor; of copy: "
      "the bytes a step must move per second against the copy ceiling%s)\n",
      against_label.empty() ? "" : "; (x): the other backend's time over ours");
}

int run_bench(const BenchPlan& plan) {
  std::string reason;
  if (!timing::gpu_available(&reason)) {
    std::printf("qsacheck bench: not run: %s\n", reason.c_str());
    std::fprintf(stderr, "qsacheck bench times on a CUDA GPU; %s\n", reason.c_str());
    return kExitIncomplete;
  }
  Error error;
  std::unique_ptr<Backend> backend = open_backend(plan.args.backend, &error);
  if (!backend) return report_error(error);
  BenchRunContext context;
  context.gpu = timing::read_gpu_environment();
  context.backend = plan.args.backend;
  context.command_line = command_line(plan.args);
  const std::unique_ptr<engine::FloatComparator> floats = engine::make_float_comparator(plan.tolerance);

  timing::BenchOptions options;
  options.label = plan.args.label.empty() ? default_label(*backend) : plan.args.label;
  options.shapes = plan.shapes;
  options.repetitions = plan.repetitions;
  options.iterations = plan.iterations;
  options.references = !plan.args.no_references;
  options.floats = floats.get();
  options.progress = [](const std::string& line) { std::fprintf(stderr, "  %s\n", line.c_str()); };
  std::fprintf(stderr, "qsacheck bench: %s (%s) on %s, %zu shape(s)\n", plan.args.backend.c_str(),
               options.label.c_str(), context.gpu.name.c_str(), plan.shapes.size());
  std::vector<timing::Measurement> all = timing::run_backend_benchmarks(*backend, options);
  const size_t ours_count = all.size();
  std::string against_label;
  if (!plan.args.against.empty()) {
    std::unique_ptr<Backend> other = open_backend(plan.args.against, &error);
    if (!other) return report_error(error);
    timing::BenchOptions other_options = options;
    other_options.label = against_label = default_label(*other);
    other_options.references = false;
    for (timing::Measurement& m : timing::run_backend_benchmarks(*other, other_options)) all.push_back(std::move(m));
  }
  timing::read_gpu_clocks(&context.sm_clock_mhz_end, &context.mem_clock_mhz_end);
  print_table(plan, options.label, against_label, all);

  int disagreements = 0, not_timed = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i].disagreement)
      ++disagreements;
    else if (!all[i].not_timed.empty() && i < ours_count)
      ++not_timed;
  }
  int verdict = kExitOk;
  if (disagreements > 0) {
    std::printf("RESULT: %d shape(s) disagree with the reference and were not timed\n", disagreements);
    verdict = kExitMismatch;
  } else if (not_timed > 0) {
    std::printf("RESULT: %d benchmark(s) not timed (see above)\n", not_timed);
    verdict = kExitIncomplete;
  } else {
    std::printf("RESULT: every shape checked and timed\n");
  }
  if (!plan.args.out.empty()) {
    const records::Record record = bench_record(all, plan.repetitions, context);
    if (auto failure = write_output_file(plan.args.out, records::record_to_json(record).dump(2) + "\n")) {
      std::fprintf(stderr, "qsacheck bench: the record was NOT written: %s\n", failure->c_str());
      return verdict == kExitOk ? kExitIncomplete : verdict;
    }
    std::printf("wrote %s (%zu entries)\n", plan.args.out.c_str(), record.entries.size());
  }
  return verdict;
}

}  // namespace

void add_bench_run_options(CLI::App* bench, CommandJob* job) {
  auto a = std::make_shared<BenchArgs>();
  bench
      ->add_option("--backend", a->backend,
                   "The backend to time: cuda, or a CUDA plugin (plugin:PATH.so[#VARIANT]) that declares\n"
                   "QSA_PLUGIN_FEATURE_GRAPH_CAPTURABLE")
      ->capture_default_str();
  bench->add_option("--label", a->label,
                    "Its name in benchmark names (default: cuda, or the plugin's own name without the\n"
                    "variant, so a variant's record compares with its plugin's)");
  bench->add_option("--against", a->against, "A second backend timed in the same run, for the ratio column");
  bench
      ->add_option("--shapes", a->shapes,
                   "standard (decode 64/256/1024 x 4, mixed 8192/1024, prefill 2/4/16 x 4096; bf16 and fp8),\n"
                   "quick (decode:4096:1024, prefill:16384:4), or FAMILY:N:NR[:DTYPE],... (e.g. decode:4096:1024:fp8)")
      ->capture_default_str();
  bench->add_option("--repetitions", a->repetitions, "Repetitions kept in the record (the U test of compare wants 9+)")
      ->capture_default_str();
  bench->add_option("--iterations", a->iterations, "Graph replays per repetition")->capture_default_str();
  bench->add_flag("--no-references", a->no_references,
                  "Skip the empty-kernel floor, the copy ceiling and the unfused baseline");
  add_float_tolerance_option(bench, &a->float_tolerance);
  bench->add_option("-o,--out", a->out, "Write the benchmark record (Google Benchmark JSON with our context) here");
  bench->callback([bench, a, job] {
    if (!bench->get_subcommands().empty()) return;
    const BenchPlan plan = validated(*a);
    *job = [plan] { return run_bench(plan); };
  });
}

}  // namespace qsa::cli
