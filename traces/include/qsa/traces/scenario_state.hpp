#pragma once
// The committed state of every live request while a scenario is stepped (SPEC 7): how much has
// been committed, where the request's blocks are, which groups have no compressed row.
// It turns a StepRecord into that step's full StepInput and, afterwards, applies verification and
// the events. Both the runner and the oracle read it; it knows nothing of how a step is computed.

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "qsa/model_oracle.hpp"
#include "qsa/step_types.hpp"
#include "qsa/traces/alternative_content.hpp"
#include "qsa/traces/content.hpp"
#include "qsa/traces/scenario.hpp"

namespace qsa::traces {

struct RequestLedger {
  int64_t request = 0;
  int64_t family = -1;
  int64_t prompt_len = 0;
  int64_t family_len = 0;       // ChunkRecord::family_len
  int64_t committed = 0;        // L
  std::vector<int32_t> blocks;  // latest compressed block table row
  int32_t ring_block = -1;
  std::vector<bool> exempt;  // per group: its committed closing row had no compressed slot

  /// Origin of the committed token at `position`.
  Origin committed_origin(int64_t position) const;
  /// Origin of a row written in `step`: the committed token when verification accepts it, else a
  /// rejected draft of that step.
  Origin row_origin(int64_t position, int64_t step, bool accepted) const;
};

class ScenarioState {
 public:
  explicit ScenarioState(const ScenarioConfig& config);

  const ScenarioConfig& config() const { return config_; }
  const StepConfig& step_config() const { return step_config_; }
  /// The scenario's row content (keys and queries of every origin).
  const RowContent& content() const { return content_; }

  /// The inputs of step `index` described by `record`, given the state before it. Throws
  /// InputError (field "steps", index = step) when the record contradicts the state, e.g. a
  /// chunk that does not start at the committed length and is not a prefix hit on a fresh request.
  StepInput step_input(const StepRecord& record, int64_t index) const;

  /// For a `prefilled` chunk of step `index` (checked by step_input): the inputs of a prefill of
  /// its positions [0, start) in pieces of at most max_num_batched_tokens rows, each accepted
  /// whole, on the chunk's own blocks; the runner steps the reference over them before the step.
  /// apply() of the step then commits the request as if they had run.
  std::vector<StepInput> prefill_inputs(const ChunkRecord& chunk, int64_t index) const;

  /// Origin of every row of that step, padding rows included.
  std::vector<Origin> row_origins(const StepRecord& record, int64_t index) const;
  /// The rows of step `index` that hold a numerical alternative's planted input (content version
  /// 4; zeros before), per alternative: the input-space coverage counts them.
  AlternativeRowCounts alternative_rows(const StepRecord& record, int64_t index) const;

  /// Applies verification (accepted rows become committed), then `finished` and `preempted`.
  void apply(const StepRecord& record, int64_t index);

  const std::map<int64_t, RequestLedger>& requests() const { return requests_; }

  /// The oracle's view of one live request.
  CommittedStream committed_stream(const RequestLedger& ledger) const;

 private:
  RequestLedger ledger_for(const ChunkRecord& chunk) const;  // the existing ledger or a fresh one
  StepInput build_input(const StepRecord& record, int64_t index) const;  // step_input without the checks
  void check_chunk(const ChunkRecord& chunk, int64_t index) const;

  ScenarioConfig config_;
  StepConfig step_config_;
  RowContent content_;
  std::map<int64_t, RequestLedger> requests_;
  // The alternative rows of the last step whose input was built (its index first): a cache, so the
  // coverage does not build the rows twice.
  mutable std::pair<int64_t, AlternativeRowCounts> alternative_rows_{-1, {}};
};

}  // namespace qsa::traces
