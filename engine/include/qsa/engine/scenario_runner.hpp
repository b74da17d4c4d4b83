#pragma once
// Steps a scenario through one backend and checks every step: the metadata of all three cache
// kinds (SPEC 7.4 invariants, bitwise equality with the reference), the step update (bitwise
// equality with the reference, writes only at named slots: SPEC 7.5), the Q path, and the model
// oracle after verification (SPEC 7.1-7.3). The first failure stops the run. Each backend run is
// judged by the checking engine (check_engine.hpp); the reference's metadata of a step is built
// once per kind and shared by the differential, the write check and the digests.

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "qsa/backend_interface.hpp"
#include "qsa/engine/check_engine.hpp"
#include "qsa/engine/check_id.hpp"
#include "qsa/engine/input_space_coverage.hpp"
#include "qsa/model_oracle.hpp"
#include "qsa/traces/interleaved_calls.hpp"
#include "qsa/traces/prefix_hits.hpp"
#include "qsa/traces/scenario.hpp"
#include "qsa/traces/scenario_caches.hpp"
#include "qsa/traces/scenario_state.hpp"
#include "qsa/traces/step_digest.hpp"

namespace qsa::engine {

struct RunOptions {
  bool check_metadata = true;    // all three kinds: invariants, and equality with the reference
  bool run_step_update = true;   // the step update with its checks (skipped for backends that lack it)
  bool differential = true;      // compare with the reference bit for bit (not when the backend is the reference)
  bool check_writes = true;      // SPEC 7.5: bytes change only in rows the metadata names
  int64_t sweep_every = 32;      // re-check every complete group of every live request every n steps (0: never)
  /// The differential and the write check compare, after each step, only the rows that step may
  /// write (the slots the reference's metadata names), so a step costs what it touches, not what
  /// the caches hold; both whole caches are compared every n steps and at finish(), so a stray
  /// write anywhere is caught within n steps (check "7.5-writes", naming the steps). 1: the whole
  /// caches after every step (each stray write at its step); 0: only at finish(). A backend whose
  /// kernel comes from outside (Backend::outside_kernel(): a plugin, a worker) keeps the touched-row
  /// comparison and gets the whole caches compared after every step whatever n is, unless its
  /// adapter compared its whole copy itself and every range it reports changed
  /// (CacheJournal::kernel_writes) lies in the rows the step may write (then every n steps).
  /// docs/campaign-time.md gives the cost.
  int64_t full_compare_every = 64;
  bool compute_digests = false;  // digest the backend's outputs after each step (last_digest())
  /// Recorded digests ([steps], e.g. ScenarioFile::digests): each step's digest must equal its
  /// entry (check "digest", naming the first differing output). Implies compute_digests.
  const std::vector<traces::StepDigest>* expected_digests = nullptr;
  /// How compressed rows and q_out are compared (the differential, the oracle's group and Q path
  /// checks, the recorded digests). In a tolerance mode the differential always runs (unless the
  /// backend is the reference), and a digest mismatch of those two outputs is judged by it: the
  /// reference is recomputed and compared through the comparator.
  traces::FloatTolerance float_tolerance{};
  /// Tolerance mode: accumulates the row-ulp figures of every step (optional).
  StepFloatStatistics* float_statistics = nullptr;
  /// Counts every step's input against the input-space inventory (optional; input_space.hpp).
  InputSpaceCoverage* input_space = nullptr;
  /// A campaign that can draw the scenario again: a step the backend's declared constraints
  /// exclude (Backend::excludes, a slot past a kernel's int32 say) is not run; the runner stops
  /// there and excluded() says why. Off (a replay): the backend declines such a step (not run).
  bool stop_at_exclusion = false;
  /// The calls on the same instance before some steps (traces/interleaved_calls.hpp), those the
  /// backend's declared limits exclude included (sent, and they must be declined). Off only for
  /// a kernel built for a few geometries that declares none of them (the planted CUDA step
  /// variants: another configuration's call would be refused, not caught).
  bool calls_between_steps = true;
};

struct RunFailure {
  int64_t step = -1;
  CheckId check;        // Check::kMetadataDifferential, kCompressedRow, kWrites, kScenario, kDigest, ...
  std::string message;  // names the request, position, slot and both values where it can
  bool invalid_scenario = false;  // the scenario itself contradicts SPEC 7 (no backend is at fault)
  std::string field;              // for the checking engine's findings: the output (or error field)
  int64_t index = -1;             //   and the first differing element (Finding::key())
};

std::string to_string(const RunFailure& failure);

struct StepLoopResult;
struct StepObserver;
using StepSource = std::function<const traces::StepRecord*()>;

/// Holds a scenario's caches and checks each step handed to it. Only the step loop
/// (step_loop.hpp: run_steps) steps it, so every caller ends a scenario the same way.
class ScenarioRunner {
 public:
  ScenarioRunner(const traces::ScenarioConfig& config, Backend& backend, RunOptions options = {});

  int64_t steps_run() const { return index_; }
  /// False once the backend answered kNotImplemented for the step update (metadata is still checked).
  bool step_update_supported() const { return step_update_supported_; }
  /// What the backend declined as outside its declared capabilities (is_declined(): a plugin's
  /// kNotImplemented with rule "missing-capability"), each with the reason: reported as not run.
  const std::set<std::string>& declined() const { return declined_; }
  /// Why the last step was excluded (RunOptions::stop_at_exclusion); empty when none was.
  const std::string& excluded() const { return excluded_; }
  const traces::ScenarioState& state() const { return state_; }
  /// What the prefix hits of the steps run shared (counted with RunOptions::input_space only).
  const traces::PrefixHitCounts& prefix_hit_counts() const { return prefix_hits_.counts(); }
  /// The backend's caches after the steps run so far.
  const StepCaches& caches() const { return caches_; }
  /// The digest of the backend's outputs in the last step run (with compute_digests or
  /// expected_digests; empty otherwise). Metadata entries only when the step update did not run.
  const traces::StepDigest& last_digest() const { return digest_; }
  /// The recorded digest the next step must equal, in place of expected_digests: a replay that
  /// reads its file one step at a time holds no more than that step's digest.
  void expect_next_digest(traces::StepDigest digest) { expected_next_ = std::move(digest); }

 private:
  friend StepLoopResult run_steps(ScenarioRunner& runner, const StepSource& next, const StepObserver& observer);

  /// Runs and checks the next step. After a failure the runner should not be stepped further.
  std::optional<RunFailure> step(const traces::StepRecord& record);
  /// After the last step: compares both whole caches if some step since the last full comparison
  /// compared only its rows (RunOptions::full_compare_every).
  std::optional<RunFailure> finish();

  /// Before a step: the pre-filled context of its `prefilled` chunks, written by the reference into
  /// the backend's caches and the expected ones (docs/workloads.md "Pre-filled context").
  std::optional<RunFailure> prefill(const traces::StepRecord& record);
  std::optional<RunFailure> check_metadata(const traces::StepRecord& record);
  std::optional<RunFailure> check_step_update();
  /// The calls on the same instance before some steps (traces/interleaved_calls.hpp): the
  /// rejected one, on the scenario's caches, from check_step_update(); the step-status and
  /// other-configuration ones, on caches of their own, before the step's metadata.
  std::optional<RunFailure> check_rejected_call(StepCaches* caches);
  std::optional<RunFailure> check_interleaved_call();
  /// The valid call (step-status or other-configuration) on caches of its own, against the reference.
  std::optional<RunFailure> check_interleaved_step(const std::string& what, traces::InterleavedStep call);
  /// A call the backend's declared limits exclude (`why`): it must answer is_declined() and write
  /// nothing (`untouched`); another answer fails `status_check`.
  std::optional<RunFailure> judge_declined(const std::string& what, const std::string& why, Status status,
                                           const Error& error, CheckId status_check, bool untouched) const;
  static bool run_untouched(const MetadataInput& in, const MetadataRun& run);
  /// Names a declined call in call_before_ and counts it (RunOptions::input_space).
  void note_declined_call(const std::string& what, bool declined);
  /// The step itself, after any call before it: metadata, step update, oracle, digest.
  std::optional<RunFailure> check_valid_step(const traces::StepRecord& record);
  static constexpr uint64_t kRejectedCallStream = 0x72656a6563746564ull;  // "rejected"
  std::optional<RunFailure> check_oracle(const traces::StepRecord& record, const std::map<int64_t, int64_t>& committed_before);
  std::optional<RunFailure> check_digest(bool update_ran);
  /// Both whole caches against the expected ones, after `step` (see full_compare_every).
  std::optional<RunFailure> compare_whole_caches(int64_t step);
  /// The reference's metadata of this step for kind 0 (compressed), 1 (ring) or 2 (passthrough),
  /// built on first use and kept for the step (the checks, the writes and the digest share it).
  const MetadataRun& expected_metadata(int kind_index);
  RunFailure failure(CheckId check, const std::string& message) const;
  /// Which blocks of one cache some step has named (and so poisoned).
  struct BlockPoison {
    CacheLayout layout;
    std::vector<bool> done;  // [num_blocks], one bit per block
  };
  /// Poisons, in the backend's store and the expected one, each block of `table` no earlier step named.
  static void poison_new_blocks(const BlockTable& table, BlockPoison& poison, CacheBuffer& backend,
                                CacheBytes& expected);

  traces::ScenarioState state_;
  traces::PrefixHitTracker prefix_hits_;  // the SPEC 7 rows of the input-space inventory (with input_space)
  ModelOracle oracle_;
  Backend& backend_;
  std::unique_ptr<Backend> reference_;
  RunOptions options_;
  std::unique_ptr<FloatComparator> floats_;
  StepCaches caches_;            // the backend's caches
  // The reference's caches, for the differential check; without the differential, the write
  // check's copy of the backend's caches, updated only in the rows each step may write.
  StepCaches reference_caches_;
  BlockPoison compressed_poison_;
  BlockPoison ring_poison_;
  int64_t rows_only_since_ = std::numeric_limits<int64_t>::max();  // the first step not fully compared
  StepInput input_;              // this step's input
  MetadataInput inputs_[3];      // its metadata inputs: compressed, ring, passthrough
  MetadataRun expected_[3];      // the reference's answers to them (valid where expected_ready_)
  bool expected_ready_[3] = {false, false, false};
  MetadataOutput metadata_[3];  // the backend's metadata of this step: compressed, ring, passthrough
  StepOutput output_;           // the backend's step output of this step (when the update ran)
  traces::StepDigest digest_;
  std::optional<traces::StepDigest> expected_next_;  // expect_next_digest()
  int64_t index_ = 0;
  bool step_update_supported_ = true;
  bool backend_is_reference_ = false;  // its metadata is the reference's: built once, not twice
  bool compare_every_step_ = false;    // an outside kernel: the whole caches after every step (SPEC 7.5)
  std::set<std::string> declined_;
  std::string excluded_;
  std::string call_before_;  // what was called on the instance before this step ("" when nothing)
  std::unique_ptr<traces::InterleavedCalls> calls_;  // the valid calls between steps, built on first use
};

/// Runs a whole scenario; nullopt when every step passed.
std::optional<RunFailure> run_scenario(const traces::Scenario& scenario, Backend& backend, const RunOptions& options = {});


}  // namespace qsa::engine
