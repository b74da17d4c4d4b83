#include "help_types.hpp"

#include <map>
#include <string>

namespace qsa::cli {
namespace {

// The numeric options read as text (number_options.hpp says why) and what --help should call
// their values instead of CLI11's TEXT.
const std::map<std::string, std::string>& value_types() {
  static const std::map<std::string, std::string> types{
      {"batches", "INT"},       {"block-size", "INT"},        {"cache-blocks", "INT"},     {"compress-ratio", "INT"},
      {"drafts", "INT"},        {"hash-block", "INT"},        {"head-dim", "INT"},
      {"iterations", "INT"},    {"jobs", "INT"},              {"length-scale", "INT"},
      {"max-findings", "INT"},  {"max-num-seqs", "INT"},      {"num-speculative-tokens", "INT"},
      {"preempt-per-mille", "INT"},
      {"prefilled-context", "INT"}, {"query-heads", "INT"},   {"repetitions", "INT"},
      {"rotary-dim", "INT"},    {"scenarios", "INT"},         {"steps", "INT"},
      {"time-compression", "INT"}, {"token-budget", "INT"},   {"seed", "UINT64"},
      {"time-budget", "SECONDS"}, {"worker-timeout", "SECONDS"}, {"shard", "K/N"},
      {"window", "FROM:TO"}};
  return types;
}

}  // namespace

void name_value_types(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    for (const std::string& name : option->get_lnames()) {
      const auto it = value_types().find(name);
      if (it != value_types().end()) option->type_name(it->second);
    }
  }
  for (CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) name_value_types(*sub);
}

}  // namespace qsa::cli
