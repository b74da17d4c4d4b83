#include "check_summary.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "input_space_text.hpp"
#include "output.hpp"
#include "qsa/backends/cuda_kernel_path.hpp"
#include "qsa/engine/check_log_figures.hpp"

namespace qsa::cli {
namespace {

double percent(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

}  // namespace

namespace {


// "name: steps, ..." in the order of `all`, then any other name counted.
std::string step_counts_line(const std::map<std::string, int64_t>& steps, const std::vector<std::string>& all) {
  std::string line;
  auto add = [&](const std::string& name, int64_t count) {
    line += (line.empty() ? "" : ", ") + name + ": " + std::to_string(count);
  };
  for (const std::string& name : all)
    if (steps.count(name) != 0) add(name, steps.at(name));
  for (const auto& [name, count] : steps)
    if (std::find(all.begin(), all.end(), name) == all.end()) add(name, count);
  return line;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

// --keep-going: every listed finding with its reproducer, and what the cap left out.
void print_findings(const CheckReport& r, std::FILE* out) {
  if (r.findings_total == 0) return;
  std::fprintf(out, "\n%lld finding(s)%s:\n", static_cast<long long>(r.findings_total),
               r.findings.size() < static_cast<size_t>(r.findings_total) ? ", the first ones in campaign order" : "");
  for (size_t i = 0; i < r.findings.size(); ++i) {
    const CheckFinding& f = r.findings[i];
    std::fprintf(out, "  %zu. %s on %s%s: %s\n", i + 1, f.check.c_str(), f.backend.c_str(),
                 f.device >= 0 ? (" (device " + std::to_string(f.device) + ")").c_str() : "", f.what.c_str());
    if (!f.reproducer.empty())
      std::fprintf(out, "     reproducer: %s\n     replay:     %s\n", f.reproducer.c_str(), f.replay_command.c_str());
  }
  const int64_t unlisted = r.findings_total - static_cast<int64_t>(r.findings.size());
  if (unlisted > 0)
    std::fprintf(out,
                 "  ... and %lld more: the cap of --max-findings %lld was reached; they are counted in the table\n"
                 "      but not listed or shrunk (raise --max-findings to see them)\n",
                 static_cast<long long>(unlisted), static_cast<long long>(r.campaign.max_findings));
}

}  // namespace

namespace {

// What each backend declared and what its declarations left out: the classes never tested first.
void print_declared_limits(const CheckReport& r, std::FILE* out) {
  for (const DeclaredLimits& d : r.declared_limits) {
    std::fprintf(out, "\ndeclared limits of %s:\n", d.backend.c_str());
    for (const auto& [key, value] : d.declared) std::fprintf(out, "  %-22s %s\n", key.c_str(), value.c_str());
    std::string excluded;
    for (const auto& [what, n] : d.excluded) excluded += (excluded.empty() ? "" : ", ") + std::to_string(n) + " " + what;
    std::fprintf(out, "  excluded (generated, never run): %s; declined after generation: %lld\n",
                 excluded.empty() ? "none" : excluded.c_str(), static_cast<long long>(d.declined));
    for (const auto& [why, n] : d.reasons) std::fprintf(out, "    - %lld: %s\n", static_cast<long long>(n), why.c_str());
  }
  const std::vector<std::string> untested = engine::untested_classes(r);
  if (!untested.empty())
    std::fprintf(out, "input classes never tested (the declarations excluded every input of them): %s\n",
                 joined(untested).c_str());
  if (!r.exclusions_beyond_allowed.empty())
    std::fprintf(out, "FAILED: excluded beyond --allow-excluded: %s\n", joined(r.exclusions_beyond_allowed).c_str());
}

}  // namespace

bool checks_cuda_kernels(const CheckReport& r) {
  for (std::string name : r.backends) {
    if (name.rfind("isolated:", 0) == 0) name = name.substr(9);
    if (name == "cuda" || name.rfind("cuda-planted-", 0) == 0) return true;
  }
  return false;
}

namespace {

// A finding comes first: what failed, then how to replay it, before any table.
void print_failures(const CheckReport& r, std::FILE* out) {
  for (const CheckRow& row : r.rows)
    if (row.failures > 0)
      std::fprintf(out, "\nFAILED %s on %s:\n  %s\n", row.check.c_str(), row.backend.c_str(),
                   row.first_failure.c_str());
  if (r.campaign.keep_going) {
    print_findings(r, out);
  } else if (!r.reproducer.empty()) {
    std::fprintf(out, "\nreproducer: %s\nreplay:     %s\n", r.reproducer.c_str(), r.replay_command.c_str());
  }
}

// A backend as the table names it: every word holding a path reduced to its file name
// ("plugin:/opt/k/build/libk.so#v" -> "plugin:libk.so#v", a worker's script likewise); the header
// line above the table names it in full.
std::string table_name(const std::string& backend) {
  std::string out, word;
  auto flush = [&] {
    const size_t prefix = word.rfind(':', word.find('/'));  // keep "plugin:" before a path
    const size_t slash = word.rfind('/');
    if (slash != std::string::npos)
      word = (prefix != std::string::npos && prefix < slash ? word.substr(0, prefix + 1) : "") + word.substr(slash + 1);
    out += word;
    word.clear();
  };
  for (char ch : backend) {
    if (ch == ' ') {
      flush();
      out += ch;
    } else {
      word += ch;
    }
  }
  flush();
  return out;
}

// The per-check table, its columns as wide as the longest check and backend name it holds; the
// backends by their short names unless two would read alike.
void print_table(const CheckReport& r, std::FILE* out) {
  std::map<std::string, std::string> shown;
  std::set<std::string> short_names;
  for (const std::string& b : r.backends) short_names.insert(table_name(b));
  const bool shorten = short_names.size() == r.backends.size();
  int check_width = 5, backend_width = 7;
  for (const CheckRow& row : r.rows) {
    shown.emplace(row.backend, shorten ? table_name(row.backend) : row.backend);
    check_width = std::max(check_width, static_cast<int>(row.check.size()));
    backend_width = std::max(backend_width, static_cast<int>(shown[row.backend].size()));
  }
  std::fprintf(out, "\n%-*s  %-*s %8s %7s %9s\n", check_width, "check", backend_width, "backend", "cases", "failed",
               "seconds");
  for (const CheckRow& row : r.rows)
    std::fprintf(out, "%-*s  %-*s %8lld %7lld %9.2f\n", check_width, row.check.c_str(), backend_width,
                 shown[row.backend].c_str(), static_cast<long long>(row.cases), static_cast<long long>(row.failures),
                 row.seconds);
}

}  // namespace

void print_report(const CheckReport& r, std::FILE* out, bool list_input_space) {
  std::fprintf(out, "\n");
  if (engine::checks_no_kernel(r)) std::fprintf(out, "qsacheck check: %s\n", engine::no_kernel_note(r).c_str());
  std::fprintf(out, "qsacheck check: seed %llu, backends: %s", static_cast<unsigned long long>(r.seed),
               joined(r.backends).c_str());
  if (r.campaign.shard_count > 1)
    std::fprintf(out, ", shard %lld/%lld", static_cast<long long>(r.campaign.shard_index),
                 static_cast<long long>(r.campaign.shard_count));
  std::fprintf(out, ", float comparison %s%s\n", r.float_tolerance.to_string().c_str(),
               r.float_tolerance.exact() ? " (bit for bit)" : " (SPEC 6 tolerance mode: NOT an exact result)");
  print_failures(r, out);
  print_table(r, out);
  const traces::Coverage& c = r.coverage;
  std::fprintf(
      out,
      "\ncoverage: %lld steps, %lld rows, %lld requests, %lld groups closed, %lld ring wraps, %lld drafts rejected,\n"
      "          %lld preemptions, %lld prefix hits, %lld padded steps, %lld negative common slots,\n"
      "          %lld MRoPE steps, %lld fp8 steps\n",
      static_cast<long long>(c.steps), static_cast<long long>(c.rows), static_cast<long long>(c.requests),
      static_cast<long long>(c.groups_closed), static_cast<long long>(c.ring_wraps),
      static_cast<long long>(c.drafts_rejected), static_cast<long long>(c.preemptions),
      static_cast<long long>(c.prefix_hits), static_cast<long long>(c.padded_steps),
      static_cast<long long>(c.negative_common_slots), static_cast<long long>(c.mrope_steps),
      static_cast<long long>(c.fp8_steps));
  for (const std::string& line : r.kernel_time) std::fprintf(out, "%s\n", line.c_str());
  // The paths and grids of this build's CUDA step kernel say nothing about a plugin's or a
  // worker's kernel: shown only when the CUDA backend ran (the JSON report keeps them always).
  if (!r.kernel_path_steps.empty() && checks_cuda_kernels(r)) {  // in the kernel's order, then any D it is not built for
    std::fprintf(out, "CUDA kernel paths (steps): %s\n",
                 step_counts_line(r.kernel_path_steps, backends::cuda_step_kernel_paths()).c_str());
    if (const std::string missing = joined(engine::kernel_paths_not_reached(r)); !missing.empty())
      std::fprintf(out, "  not reached: %s\n", missing.c_str());
  }
  if (!r.grid_steps.empty() && checks_cuda_kernels(r)) {
    std::fprintf(out, "CUDA kernel grids (steps): %s\n",
                 step_counts_line(r.grid_steps, backends::cuda_step_grids()).c_str());
    if (const std::string missing = joined(engine::grids_not_reached(r)); !missing.empty())
      std::fprintf(out, "  not reached: %s\n", missing.c_str());
  }
  print_sharing(r, out);
  print_check_log_figures(r, out);  // the replayed log beside the coverage above
  print_input_space(r.input_space, out, list_input_space);
  for (const auto& [backend, stats] : r.float_statistics) {
    std::fprintf(out, "\nfloat outputs of %s under %s:\n", backend.c_str(), r.float_tolerance.to_string().c_str());
    std::fprintf(out, "  %s\n  %s\n", stats.compressed.to_string("compressed cache").c_str(),
                 stats.q_out.to_string("q_out").c_str());
  }
  if (!r.unavailable.empty()) {
    std::fprintf(out, "\nbackends not available here (not part of this campaign):\n");
    for (const std::string& line : r.unavailable) std::fprintf(out, "  - %s\n", line.c_str());
  }
  print_declared_limits(r, out);
  if (!r.not_run.empty()) {
    std::fprintf(out, "\nnot run:\n");
    for (const std::string& line : r.not_run) std::fprintf(out, "  - %s\n", line.c_str());
  }
  std::fprintf(out, "\nRESULT: %s\n", engine::verdict_text(r).c_str());
  std::fflush(out);
}

void print_sharing(const CheckReport& report, std::FILE* out) {
  const traces::PrefixHitCounts& h = report.sharing;
  std::string depth;
  for (const auto& [blocks, n] : h.depth) depth += " " + std::to_string(blocks) + "x" + std::to_string(n);
  std::fprintf(out,
               "sharing:  %lld prefix hits read %lld blocks (%lld positions); %lld hits (%lld blocks) on finished "
               "requests' blocks, %lld deeper than one block, %lld after a block's reuse, %lld on blocks live requests "
               "share; %lld evictions; hit depth in blocks:%s\n",
               static_cast<long long>(h.hits), static_cast<long long>(h.hit_blocks),
               static_cast<long long>(h.hit_positions), static_cast<long long>(h.on_finished),
               static_cast<long long>(h.blocks_on_finished), static_cast<long long>(h.deeper_than_one),
               static_cast<long long>(h.after_eviction), static_cast<long long>(h.shared_by_live),
               static_cast<long long>(report.evictions), depth.empty() ? " none" : depth.c_str());
}

void print_check_log_figures(const CheckReport& report, std::FILE* out) {
  if (report.request_log.is_null()) return;
  const nlohmann::json e = engine::exercised_json(report);
  const std::string text = traces::request_log_figures_text(report.request_log);
  std::fprintf(out,
               "\n%scampaign exercised: %lld scenario runs, %lld steps, %lld requests, %lld prefix hits, %lld "
               "preemptions; reused %lld of the log-implied reusable %lld positions (%.1f %%)\n",
               text.c_str(), static_cast<long long>(e["scenario_runs"].get<int64_t>()),
               static_cast<long long>(e["steps"].get<int64_t>()), static_cast<long long>(e["requests"].get<int64_t>()),
               static_cast<long long>(e["prefix_hits"].get<int64_t>()),
               static_cast<long long>(e["preemptions"].get<int64_t>()),
               static_cast<long long>(report.log_implied_reused), static_cast<long long>(report.log_implied_reusable),
               percent(report.log_implied_reused, report.log_implied_reusable));
}

}  // namespace qsa::cli
