#pragma once
// Coverage of the input-space inventory (input_space.hpp): fed every metadata batch and every step
// input a campaign generates, it counts per row how often the class occurred and, for a ranged
// row, the extremes reached and which of the edges lo, lo + 1, hi - 1, hi were hit. Counting is
// linear in the input (one pass over rows, requests, block-table entries and bf16 elements) and
// needs no backend: the same counts come from running a campaign or from generating its inputs.

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "qsa/engine/input_space.hpp"
#include "qsa/status.hpp"
#include "qsa/step_types.hpp"
#include "qsa/traces/alternative_content.hpp"
#include "qsa/traces/prefix_hits.hpp"
#include "qsa/traces/scenario.hpp"
#include "qsa/types.hpp"

namespace qsa::engine {

/// What one row of the inventory saw.
struct InputClassCount {
  int64_t count = 0;                                  // occurrences (values, for a ranged row)
  int64_t steps = 0;                                  // of them in step inputs (the rest: metadata batches)
  int64_t min = std::numeric_limits<int64_t>::max();  // ranged rows: the extremes (when count > 0)
  int64_t max = std::numeric_limits<int64_t>::min();
  std::array<bool, kNumEdges> edges{};  // lo, lo + 1, hi - 1, hi hit (ranged rows)

  InputClassCount& operator+=(const InputClassCount& other);
  bool operator==(const InputClassCount& other) const;
};

class InputSpaceCoverage {
 public:
  /// A generated metadata batch. A valid one counts its parameters, shape and order; an invalid
  /// one counts only the SPEC 1.4 rule that rejects it (its values are not legal ones).
  void add_batch(const MetadataInput& input);
  /// One step's input (its batch, both block tables, the step parameters, keys, queries, weights)
  /// with the layouts of the caches it runs on (for the blocks past the cache) and the number of
  /// its rows that verification rejects (the rejected-draft role; the input alone does not say).
  void add_step(const StepInput& input, const CacheLayout& compressed, const CacheLayout& ring,
                int64_t rejected_rows = 0);
  /// The prefix hits of one step (PrefixHitTracker::add's answer): the SPEC 7 rows that depend on
  /// which request wrote a block, which a step input alone does not show.
  void add_prefix_hits(const traces::PrefixHitCounts& step_hits);
  /// The rows of one step that hold a numerical alternative's searched input
  /// (ScenarioState::alternative_rows): which class a row's content is, a value alone does not say.
  void add_alternative_rows(const traces::AlternativeRowCounts& step_rows);
  /// The call a runner makes on the backend instance before step `index` of a scenario of `config`
  /// (traces/interleaved_calls.hpp), a function of the two, so no backend is needed to count it.
  void add_call_before_step(const traces::ScenarioConfig& config, int64_t index);
  /// A call before a valid step that the backend's declared limits exclude, sent to be declined
  /// (the scenario runner counts it: it depends on the backend, InputClass::needs_declared_limits).
  void add_declined_call();
  /// A scenario of `now` run on a backend instance whose last scenario was `previous` (nullptr: a
  /// fresh instance): counted when their step geometries differ (a campaign reuses one instance per
  /// job thread; count_instance_geometry() in campaign_inputs.hpp says which jobs are paired).
  void add_scenario_on_instance(const traces::ScenarioConfig* previous, const traces::ScenarioConfig& now);

  /// Counts add, extremes combine, edges join (shards of one campaign, jobs of one run).
  InputSpaceCoverage& operator+=(const InputSpaceCoverage& other);
  bool operator==(const InputSpaceCoverage& other) const { return counts_ == other.counts_; }

  const InputClassCount& at(InputClassId id) const { return counts_[static_cast<size_t>(id)]; }
  InputClassCount& at(InputClassId id) { return counts_[static_cast<size_t>(id)]; }
  /// count > 0; a row of both scopes needs a metadata batch and a step input (a class of the
  /// batch that only the metadata builders saw has not reached the step update).
  bool reached(InputClassId id) const;
  /// The legal edges of the row that no input hit ("hi-1", "hi"), in edge order.
  std::vector<std::string> missed_edges(InputClassId id) const;
  /// Rows with count > 0.
  int reached_rows() const;
  /// One line per unreached row ("key_nan: never reached", "query_len: no step input reached
  /// it"), then per reached row with missed edges
  /// ("seq_len: edges hi-1 (2147483646), hi (2147483647) not reached"), in table order.
  std::vector<std::string> gaps() const;
  /// The same gaps as stable keys (a row that needs declared limits is never one), one per unreached row ("key_nan")
  /// and per missed edge
  /// ("seq_len hi-1"): what a list of known gaps names (qsacheck input-space --known-gaps).
  std::vector<std::string> gap_keys() const;
  /// Whether `key` can be a gap of some campaign: a row id, or a row id and one of its legal edges.
  static bool is_gap_key(const std::string& key);

 private:
  void hit(InputClassId id, int64_t times = 1);
  void value(InputClassId id, int64_t v);              // a ranged row with the table's hi
  void value(InputClassId id, int64_t v, int64_t hi);  // a ranged row whose hi is this input's
  void count_batch(const Batch& batch);
  void count_compressed(const Batch& batch, int64_t c, int64_t s, const BlockTable& table);
  void count_ring(const Batch& batch, int64_t r, const BlockTable& table);
  void count_table(const Batch& batch, const BlockTable& table, int64_t columns);
  void count_cache_blocks(const Batch& batch, const BlockTable& table, int64_t columns, const CacheLayout& layout,
                          InputClassId in_cache, InputClassId past_cache);
  void count_step_parameters(const StepConfig& config);
  void count_positions(const StepInput& input);
  void count_special_values(const std::vector<Bf16>& values, InputClassId nan);
  void count_invalid(const Error& error);
  void count_roles(const StepInput& input, int64_t rejected_rows);
  void count_stale_table(const Batch& batch, const BlockTable& table, const char* field);

  std::array<InputClassCount, kNumInputClasses> counts_{};
  bool in_step_ = false;  // add_step() is counting
};

}  // namespace qsa::engine
