// `qsacheck input-space`: the input-space inventory. Without options it prints
// docs/input-space.md as generated from the table; --campaign counts the inputs the default
// campaign generates, without running a backend, and exits 1 naming every class not reached and
// every legal edge of a range that was missed. With --known-gaps FILE it exits 1 only when the
// gaps differ from the file's: a new gap, or a listed one that is reached now (a ratchet: the
// list only shrinks, and CI holds the campaign to it until it is empty).

#include <cstdio>
#include <memory>
#include <set>
#include <sstream>

#include "campaign_names.hpp"
#include "commands.hpp"
#include "input_space_text.hpp"
#include "number_options.hpp"
#include "output.hpp"
#include "qsa/engine/campaign_inputs.hpp"
#include "qsa/engine/input_space.hpp"
#include "qsa/engine/input_space_report.hpp"
#include "qsa/traces/json_reader.hpp"

namespace qsa::cli {
namespace {

struct InputSpaceArguments {
  bool campaign = false;
  std::string seed = "1", batches = "3000", jobs = "1", known_gaps;
};


int count_campaign(uint64_t seed, int64_t batches, int threads, const std::set<std::string>* known,
                   const std::string& known_path) {
  const engine::InputSpaceCoverage coverage = engine::campaign_input_space(engine::default_campaign(seed), seed, batches, threads);
  print_input_space(coverage, stdout);
  if (known != nullptr) return matches_known_gaps(coverage, *known, known_path, stdout) ? kExitOk : kExitMismatch;
  const std::vector<std::string> gaps = coverage.gaps();
  if (gaps.empty()) {
    std::printf("every class reached, every legal edge hit\n");
    return kExitOk;
  }
  std::printf("\n%zu gap(s) in the default campaign's inputs (seed %llu, %lld batches):\n", gaps.size(),
              static_cast<unsigned long long>(seed), static_cast<long long>(batches));
  for (const std::string& line : gaps) std::printf("  %s\n", line.c_str());
  return kExitMismatch;
}

}  // namespace

void add_input_space_command(CLI::App& app, CommandJob* job) {
  auto args = std::make_shared<InputSpaceArguments>();
  CLI::App* cmd = app.add_subcommand(
      "input-space",
      "The input-space inventory: prints docs/input-space.md (generated from the table); --campaign\n"
      "counts the default campaign's generated inputs without running a backend and exits 1 listing\n"
      "every class not reached and every edge of a range missed");
  auto* campaign =
      cmd->add_flag("--campaign", args->campaign, "Count the default campaign's inputs instead of printing the page");
  // Each option below only means something with --campaign: without it, it is an error, not ignored.
  cmd->add_option("--seed", args->seed, "Campaign seed (as qsacheck check --seed)")->needs(campaign);
  cmd->add_option("--batches", args->batches, "Generated metadata batches (as qsacheck check --batches)")
      ->needs(campaign);
  cmd->add_option("--jobs", args->jobs, "Threads generating the scenarios' inputs")->needs(campaign);
  cmd->add_option("--known-gaps", args->known_gaps,
                  "A file of gap keys (\"class\" or \"class edge\", one per line, # comments); exit 1 only\n"
                  "for a gap not listed or a listed one reached now")
      ->needs(campaign);
  cmd->callback([args, job] {
    if (!args->campaign) {
      *job = [] {
        std::fputs(engine::input_space_markdown().c_str(), stdout);
        return kExitOk;
      };
      return;
    }
    const uint64_t seed = parse_seed_option("--seed", args->seed);
    const int64_t batches = parse_integer_option("--batches", args->batches, 0, int64_t{1} << 30);
    const int threads = static_cast<int>(parse_integer_option("--jobs", args->jobs, 1, 256));
    std::shared_ptr<const std::set<std::string>> known;
    if (!args->known_gaps.empty()) {
      known = std::make_shared<std::set<std::string>>(read_key_list("--known-gaps", args->known_gaps));
      // A typo is bad input now, not a "not a gap" line after the whole campaign.
      int64_t index = 0;
      for (const std::string& key : *known) {
        if (!engine::InputSpaceCoverage::is_gap_key(key))
          throw InputError(Error{"--known-gaps", index, "unknown-key",
                                 "'" + key.substr(0, 80) + "' names no row of docs/input-space.md nor a legal edge of one"});
        ++index;
      }
    }
    const std::string path = args->known_gaps;
    *job = [seed, batches, threads, known, path] { return count_campaign(seed, batches, threads, known.get(), path); };
  });
}

}  // namespace qsa::cli
