#pragma once
// The calls a scenario runner makes on the backend instance between valid steps (content version
// 3 on; the call sequences of docs/planted-bugs.md). A kernel keeps state between calls (a device status word,
// scratch buffers sized or filled by an earlier call, staged constants), and every call must
// answer as a fresh instance would (SPEC 1.4: a rejected call writes nothing; SPEC 5: a step's
// status is the step's own). Before some steps the runner makes one such call, on the same
// instance, then runs the valid step, which is judged against the reference's fresh answer:
//
//   - steps 0, 16, 32, ...: the step's own input with one SPEC 1.4 rule broken, on the scenario's
//     caches (rejected; invalid_batch.hpp, break_step_rule);
//   - steps 8, 40, 72, ...: a valid step that ends in the step status position-out-of-range
//     (SPEC 5: a group whose first member's (t, h, w), read from the ring, lies past the RoPE
//     table), on the scenario's geometry with a ring that caches positions, on caches of its own;
//   - steps 24, 56, 88, ...: a valid step of another configuration (other D, rd, HQ, C, S, R, store
//     dtype, positions, norm weights and RoPE table), its metadata of all three kinds first, on
//     caches of its own: buffers of another shape between two steps of one instance.
//
// The calls are a function of the scenario's configuration and the step index, so the input-space
// inventory counts them without a backend (`qsacheck input-space --campaign`). On a backend that
// declares limits (Backend::excludes: a plugin's or worker's capabilities), a step-status or
// other-configuration call those limits exclude is sent all the same and must be declined
// (engine/src/scenario_runner.cpp, check_interleaved_call; counted as call_declined_before_step).

#include <cstdint>
#include <memory>
#include <optional>

#include "qsa/step_types.hpp"
#include "qsa/traces/scenario.hpp"

namespace qsa::traces {

enum class CallBeforeStep {
  kNone,
  kRejected,            // the step's input, one SPEC 1.4 rule broken, on the scenario's caches
  kStepStatus,          // a valid step ending in position-out-of-range, on caches of its own
  kOtherConfiguration,  // a valid step (and its metadata) of another configuration, on caches of its own
};

inline constexpr int64_t kCallsEvery = 16;  // a call before every 16th step, rejected or not

/// Which call precedes step `index` of a scenario of `config` (none before content version 3).
CallBeforeStep call_before_step(const ScenarioConfig& config, int64_t index);

/// A valid step input with the caches it runs on (kStepStatus, kOtherConfiguration).
struct InterleavedStep {
  StepInput input;
  StepCaches caches;
};

/// The valid calls of one scenario. Each configuration's state (norm weights, RoPE table, row
/// content) is built once, on first use: building it costs more than the call.
class InterleavedCalls {
 public:
  explicit InterleavedCalls(const ScenarioConfig& scenario);
  ~InterleavedCalls();

  /// The step status call before step `index`: the scenario's D, rd, HQ, C, S, R, store dtype, norm
  /// weights and layouts, a ring that caches positions (MRoPE), max_position max(256, 2C + 65), and
  /// two requests: one that closes a group whose first member sits in the ring with a t position
  /// equal to max_position (so the group is skipped and the step reports position-out-of-range), one
  /// that closes a group from its own rows.
  InterleavedStep step_status_call(int64_t index);
  /// The other-configuration call before step `index`: D, rd, HQ, C, store dtype and MRoPE each
  /// other than the scenario's, norm weights and a RoPE table of another seed; two requests (one
  /// closing two groups in two blocks, one with a single row), a padded request and a padding row.
  InterleavedStep other_configuration_call(int64_t index);

 private:
  struct Call;
  ScenarioConfig scenario_;
  std::unique_ptr<Call> status_, other_;
};

}  // namespace qsa::traces
