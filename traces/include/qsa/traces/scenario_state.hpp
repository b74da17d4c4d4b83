#pragma once
// The committed state of every live request while a scenario is stepped (SPEC 7): what has been
// committed, which tokens are known (prompt, accepted output), where the request's blocks are.
// It turns a StepRecord into that step's full StepInput and, afterwards, applies verification and
// the events. Both the runner and the oracle read it; it knows nothing of how a step is computed.

#include <cstdint>
#include <map>
#include <vector>

#include "qsa/model_oracle.hpp"
#include "qsa/step_types.hpp"
#include "qsa/traces/content.hpp"
#include "qsa/traces/scenario.hpp"

namespace qsa::traces {

struct RequestLedger {
  int64_t request = 0;
  int64_t family = -1;
  int64_t prompt_len = 0;
  int64_t committed = 0;                      // L
  std::vector<int64_t> generated_attempts;   // attempt of the known output token at position prompt_len + i
  std::vector<int32_t> blocks;               // latest compressed block table row
  int32_t ring_block = -1;
  std::vector<bool> exempt;                  // per group: its committed closing row had no compressed slot

  int64_t known_length() const { return prompt_len + static_cast<int64_t>(generated_attempts.size()); }
  /// Origin of the token at `position` if it is known, else of a fresh token produced in `step`.
  Origin origin(int64_t position, int64_t step) const;
};

class ScenarioState {
 public:
  explicit ScenarioState(const ScenarioConfig& config);

  const ScenarioConfig& config() const { return config_; }
  const StepConfig& step_config() const { return step_config_; }

  /// The inputs of step `index` described by `record`, given the state before it. Throws
  /// InputError (field "steps", index = step) when the record contradicts the state, e.g. a
  /// chunk that does not start at the committed length and is not a prefix hit on a fresh request.
  StepInput step_input(const StepRecord& record, int64_t index) const;

  /// Origin of every row of that step, padding rows included.
  std::vector<Origin> row_origins(const StepRecord& record, int64_t index) const;

  /// Applies verification (accepted rows become committed), then `finished` and `preempted`.
  void apply(const StepRecord& record, int64_t index);

  const std::map<int64_t, RequestLedger>& requests() const { return requests_; }

  /// The oracle's view of one live request.
  CommittedStream committed_stream(const RequestLedger& ledger) const;

 private:
  RequestLedger ledger_for(const ChunkRecord& chunk) const;  // the existing ledger or a fresh one
  void check_chunk(const ChunkRecord& chunk, int64_t index) const;

  ScenarioConfig config_;
  StepConfig step_config_;
  std::map<int64_t, RequestLedger> requests_;
};

}  // namespace qsa::traces
