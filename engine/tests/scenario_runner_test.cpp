// The scenario runner and its oracle on a hand-built scenario: the reference passes every check,
// a backend with one planted corruption fails the check that should catch it, and the file format
// and the shrinker round-trip.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <sstream>

#include "qsa/engine/input_space_coverage.hpp"
#include "qsa/engine/scenario_runner.hpp"
#include "qsa/engine/shrinker.hpp"
#include "qsa/engine/step_loop.hpp"
#include "qsa/reference/metadata.hpp"
#include "qsa/reference/reference_backend.hpp"
#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/scenario_file.hpp"
#include "qsa/validate.hpp"
#include "support/hand_scenarios.hpp"

namespace qsa {
namespace {

// Corrupts the ring row of one committed position after the reference step (a stray write).
class CorruptingBackend : public reference::ReferenceBackend {
 public:
  explicit CorruptingBackend(int64_t at_step) : at_step_(at_step) {}
  std::string name() const override { return "corrupting"; }
  Status step_update(const StepInput& in, StepCaches* caches, StepOutput* out, Error* error) override {
    const Status s = ReferenceBackend::step_update(in, caches, out, error);
    if (s != Status::kOk) return s;  // the runner's rejected calls before some steps are not steps
    // Request 0 (ring block 1) has committed 53 positions after step 7: position 52, row 4, is
    // the open group's only member.
    if (step_++ == at_step_) caches->ring.bytes[caches->ring.layout.byte_offset(1 * 8 + 4, 12)] ^= 0x40;
    return s;
    return s;
  }

 private:
  int64_t at_step_;
  int64_t step_ = 0;
};

// A kernel that builds its own metadata for its step (STEP_USES_METADATA) hands it back with the
// step's outputs; from `at_step` on, one slot of the ring group's is off by one row.
class OwnStepMetadataBackend : public reference::ReferenceBackend {
 public:
  explicit OwnStepMetadataBackend(int64_t at_step) : at_step_(at_step) {}
  std::string name() const override { return "own-step-metadata"; }
  Status step_update(const StepInput& in, StepCaches* caches, StepOutput* out, Error* error) override {
    if (Status s = ReferenceBackend::step_update(in, caches, out, error); s != Status::kOk) return s;
    for (const MetadataInput& group : {in.compressed_metadata_input(), in.ring_metadata_input()}) {
      MetadataOutput m = make_poisoned_metadata_output(group);
      if (Status s = reference::build_metadata(group, &m, error); s != Status::kOk) return s;
      out->step_metadata.push_back(std::move(m));
    }
    if (step_++ >= at_step_)
      for (int64_t& slot : out->step_metadata[1].slot_mapping)
        if (slot >= 0) {
          ++slot;
          break;
        }
    return Status::kOk;
  }

 private:
  int64_t at_step_;
  int64_t step_ = 0;
};

TEST(ScenarioRunner, MetadataAKernelGaveItsOwnStepIsJudgedByTheEngine) {
  OwnStepMetadataBackend honest(1 << 30);
  const auto passed = engine::run_scenario(testing::hand_scenario(), honest);
  EXPECT_FALSE(passed.has_value()) << engine::to_string(*passed);
  OwnStepMetadataBackend backend(3);
  const auto failure = engine::run_scenario(testing::hand_scenario(), backend);
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->step, 3);
  EXPECT_EQ(failure->check, engine::Check::kStepMetadataDifferential) << failure->message;
  EXPECT_EQ(failure->field, "slot_mapping") << failure->message;
}

TEST(ScenarioRunner, ReferencePassesEveryCheckOnTheHandScenario) {
  for (bool mrope : {false, true}) {
    for (StoreDtype dtype : {StoreDtype::kBf16, StoreDtype::kFp8E4m3}) {
      reference::ReferenceBackend backend;
      const auto failure = engine::run_scenario(testing::hand_scenario(mrope, dtype), backend,
                                                engine::RunOptions{true, true, true, true, 1});
      EXPECT_FALSE(failure.has_value()) << (failure ? engine::to_string(*failure) : "");
    }
  }
}

TEST(ScenarioRunner, StrayRingWriteIsCaughtAtItsStep) {
  CorruptingBackend backend(7);
  const auto failure = engine::run_scenario(testing::hand_scenario(), backend);
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->step, 7);
  EXPECT_EQ(failure->check, engine::Check::kStepDifferential) << failure->message;
}

TEST(ScenarioRunner, OracleAloneCatchesTheStrayWriteWithoutTheDifferential) {
  CorruptingBackend backend(7);
  engine::RunOptions options;
  options.differential = false;
  options.check_writes = false;
  options.sweep_every = 1;
  const auto failure = engine::run_scenario(testing::hand_scenario(), backend, options);
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->check, engine::Check::kRingOpenGroup) << failure->message;
}

// Flips one byte after the reference step at `at_step`: in the last compressed row (slot 63, which
// steps 4-7 of the hand scenario do not write), or in the first ring row the step itself writes.
class StrayWriteBackend : public reference::ReferenceBackend {
 public:
  StrayWriteBackend(int64_t at_step, bool in_touched_row) : at_step_(at_step), in_touched_row_(in_touched_row) {}
  std::string name() const override { return "stray-write"; }
  Status step_update(const StepInput& in, StepCaches* caches, StepOutput* out, Error* error) override {
    const Status s = ReferenceBackend::step_update(in, caches, out, error);
    if (s != Status::kOk) return s;  // the runner's rejected calls before some steps are not steps
    // Nor are its calls on caches of their own (traces/interleaved_calls.hpp): the scenario's
    // caches are those of the first call.
    if (blocks_ < 0) blocks_ = caches->compressed.layout.num_blocks;
    if (caches->compressed.layout.num_blocks != blocks_) return s;
    if (step_++ != at_step_) return s;
    if (!in_touched_row_) {
      caches->compressed.bytes[static_cast<size_t>(caches->compressed.layout.byte_offset(63, 5))] ^= 0x01;
      return s;
    }
    MetadataOutput ring = make_poisoned_metadata_output(in.ring_metadata_input());
    Error e;
    EXPECT_EQ(reference::build_metadata(in.ring_metadata_input(), &ring, &e), Status::kOk);
    for (int64_t slot : ring.slot_mapping)
      if (slot >= 0) {
        touched_slot_ = slot;
        caches->ring.bytes[static_cast<size_t>(caches->ring.layout.byte_offset(slot, 3))] ^= 0x01;
        break;
      }
    return s;
  }
  int64_t touched_slot() const { return touched_slot_; }

 private:
  int64_t at_step_;
  bool in_touched_row_;
  int64_t step_ = 0;
  int64_t touched_slot_ = -1;
  int64_t blocks_ = -1;
};

TEST(ScenarioRunner, StrayWriteOutsideTheTouchedRowsIsCaughtAtTheNextFullComparison) {
  for (bool differential : {true, false}) {
    StrayWriteBackend backend(5, false);
    engine::RunOptions options;
    options.differential = differential;
    options.full_compare_every = 4;
    const auto failure = engine::run_scenario(testing::hand_scenario(), backend, options);
    ASSERT_TRUE(failure.has_value()) << differential;
    EXPECT_EQ(failure->step, 7);  // steps 4-7 compared whole after step 7
    EXPECT_EQ(failure->check, engine::Check::kWrites);
    EXPECT_EQ(failure->field, "cache.compressed");
    EXPECT_EQ(failure->index, 63);
    EXPECT_NE(failure->message.find("changed in steps 4-7"), std::string::npos) << failure->message;
  }
}

TEST(ScenarioRunner, StrayWriteOutsideTheTouchedRowsIsCaughtAtTheEnd) {
  const traces::Scenario s = testing::hand_scenario();
  const auto last = static_cast<int64_t>(s.steps.size()) - 1;
  StrayWriteBackend backend(last, false);  // in the last step, after the last periodic comparison
  engine::RunOptions options;
  options.full_compare_every = 0;  // only at the end
  const auto failure = engine::run_scenario(s, backend, options);
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->step, last);
  EXPECT_EQ(failure->check, engine::Check::kWrites);
  EXPECT_NE(failure->message.find("changed in steps 0-" + std::to_string(last)), std::string::npos)
      << failure->message;
  // Every step passes; the last comparison, after the last step, is the one that sees it.
  StrayWriteBackend again(last, false);
  engine::ScenarioRunner runner(s.config, again, options);
  const engine::StepLoopResult run = engine::run_steps(runner, s.steps);
  ASSERT_TRUE(run.failure.has_value());
  EXPECT_TRUE(run.failed_at_finish);
  EXPECT_EQ(run.steps_passed(), static_cast<int64_t>(s.steps.size()));
  EXPECT_EQ(run.failure->check, engine::Check::kWrites);
}

TEST(ScenarioRunner, StrayWriteInATouchedRowIsCaughtAtItsStep) {
  StrayWriteBackend backend(5, true);
  const auto failure = engine::run_scenario(testing::hand_scenario(), backend);
  ASSERT_GE(backend.touched_slot(), 0);
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->step, 5);
  EXPECT_EQ(failure->check, engine::Check::kStepDifferential) << failure->message;
  EXPECT_EQ(failure->field, "cache.ring");
  EXPECT_EQ(failure->index, backend.touched_slot());
}

// The hand scenario on `backend`, both whole caches compared every `full_compare_every` steps.
std::optional<engine::RunFailure> run_hand_scenario(Backend& backend, int64_t full_compare_every) {
  engine::RunOptions options;
  options.full_compare_every = full_compare_every;
  return engine::run_scenario(testing::hand_scenario(), backend, options);
}

TEST(ScenarioRunner, EveryStepComparedWholeWhenAskedCatchesTheStrayWriteAtItsStep) {
  StrayWriteBackend backend(5, false);
  const auto failure = run_hand_scenario(backend, 1);
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->step, 5);
  EXPECT_EQ(failure->check, engine::Check::kStepDifferential) << failure->message;
}

// A kernel from outside with its own copy of the caches (a worker's shared memory or a device, in
// miniature): brought up to date from the runner's journal alone (CacheJournal::host_edits),
// stepped by the reference, what changed copied back and reported (kernel_writes). At `stray_at`
// it flips a byte of compressed slot 63, which steps 4-7 of the hand scenario do not write, and
// reports that range only if `report_stray`.
class JournaledCopyBackend : public reference::ReferenceBackend {
 public:
  explicit JournaledCopyBackend(int64_t stray_at = -1, bool report_stray = true)
      : stray_at_(stray_at), report_stray_(report_stray) {}
  std::string name() const override { return "journaled-copy"; }
  bool outside_kernel() const override { return true; }
  Status step_update(const StepInput& in, StepCaches* caches, StepOutput* out, Error* error) override {
    if (Status s = validate_step(in, *caches, error); s != Status::kOk) return s;
    CacheBuffer* host[2] = {&caches->ring, &caches->compressed};
    CacheBuffer* mine[2] = {&own_.ring, &own_.compressed};
    for (int k = 0; k < 2; ++k) {
      if (journal_in_sync(*host[k], tokens_[k])) {
        for (const ByteRange& e : host[k]->journal.host_edits)
          std::copy(host[k]->bytes.begin() + e.first, host[k]->bytes.begin() + e.second, mine[k]->bytes.begin() + e.first);
        ++journal_syncs_;
      } else {
        *mine[k] = CacheBuffer{host[k]->layout, host[k]->bytes, {}};
        ++whole_syncs_;
      }
      tokens_[k] = 0;
    }
    const Status s = ReferenceBackend::step_update(in, &own_, out, error);
    size_t stray = SIZE_MAX;
    if (s == Status::kOk && step_++ == stray_at_) {
      stray = static_cast<size_t>(own_.compressed.layout.byte_offset(63, 5));
      own_.compressed.bytes[stray] ^= 0x01;
    }
    for (int k = 0; k < 2; ++k) {
      std::vector<ByteRange> writes;
      for (size_t i = 0; i < host[k]->bytes.size(); ++i)
        if (host[k]->bytes[i] != mine[k]->bytes[i]) {
          host[k]->bytes[i] = mine[k]->bytes[i];
          if (k == 1 && i == stray && !report_stray_) continue;
          writes.emplace_back(i, i + 1);
        }
      host[k]->journal.kernel_writes = std::move(writes);
      tokens_[k] = new_cache_token();
      mark_synced(*host[k], tokens_[k]);
    }
    return s;
  }
  int64_t whole_syncs() const { return whole_syncs_; }
  int64_t journal_syncs() const { return journal_syncs_; }

 private:
  int64_t stray_at_;
  bool report_stray_;
  int64_t step_ = 0;
  StepCaches own_;
  uint64_t tokens_[2] = {0, 0};
  int64_t whole_syncs_ = 0;
  int64_t journal_syncs_ = 0;
};

TEST(ScenarioRunner, AKernelsOwnCopyFollowsTheRunnersJournalAlone) {
  // Content version 2: no calls on caches of their own between steps, whose caches the copy would
  // take whole (the next step's caches then carry another token and are taken whole again).
  traces::Scenario scenario = testing::hand_scenario();
  scenario.config.content_version = 2;
  JournaledCopyBackend backend;
  const auto failure = engine::run_scenario(scenario, backend);
  EXPECT_FALSE(failure.has_value()) << engine::to_string(*failure);
  EXPECT_EQ(backend.whole_syncs(), 2) << "each cache copied whole once, at the first step";
  EXPECT_GT(backend.journal_syncs(), 0);
}

TEST(ScenarioRunner, AKernelsOwnCopyStaysRightAcrossTheCallsBetweenSteps) {
  JournaledCopyBackend backend;  // the hand scenario's calls run on caches of their own
  const auto failure = engine::run_scenario(testing::hand_scenario(), backend);
  EXPECT_FALSE(failure.has_value()) << engine::to_string(*failure);
  EXPECT_GT(backend.journal_syncs(), 0);
}

TEST(ScenarioRunner, AStrayWriteAKernelReportsIsCaughtAtItsStep) {
  JournaledCopyBackend backend(5);
  const auto failure = engine::run_scenario(testing::hand_scenario(), backend);
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->step, 5);
  EXPECT_EQ(failure->check, engine::Check::kWrites);
  EXPECT_EQ(failure->field, "cache.compressed");
  EXPECT_EQ(failure->index, 63);
}

// The report is trusted at its step; the periodic whole comparison still runs and catches what a
// report left out.
TEST(ScenarioRunner, AStrayWriteAReportLeftOutIsCaughtAtTheNextFullComparison) {
  JournaledCopyBackend backend(5, false);
  const auto failure = run_hand_scenario(backend, 4);
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->step, 7);
  EXPECT_EQ(failure->check, engine::Check::kWrites);
  EXPECT_EQ(failure->index, 63);
}

// A kernel that declares limits, as a plugin's capabilities do: no MRoPE, no ring positions (a
// text-model kernel). The runner's step-status call (a ring that caches positions) lies outside
// them: it is sent all the same and must come back declined with nothing written. `how` plants one
// wrong answer to the excluded call.
class TextModelBackend : public reference::ReferenceBackend {
 public:
  enum class Answer { kDeclines, kRunsIt, kWritesThenDeclines, kRejects, kDeclineSticks };
  explicit TextModelBackend(Answer how = Answer::kDeclines) : how_(how) {}
  std::string name() const override { return "text-model"; }
  std::optional<std::string> excludes(const StepInput& input, const StepCaches&) const override {
    return lacks(input) ? std::optional<std::string>("ring positions") : std::nullopt;
  }
  std::optional<std::string> excludes(const StepGeometry& g) const override {
    return g.mrope || g.ring_positions ? std::optional<std::string>("ring positions") : std::nullopt;
  }
  std::optional<std::string> excludes(const MetadataInput&) const override { return std::nullopt; }
  Status step_update(const StepInput& input, StepCaches* caches, StepOutput* output, Error* error) override {
    if (lacks(input)) {
      ++excluded_calls_;
      if (how_ == Answer::kRunsIt) return ReferenceBackend::step_update(input, caches, output, error);
      if (how_ == Answer::kRejects) {
        *error = Error{"positions", -1, "out-of-range", "a ring with positions"};
        return Status::kInvalidInput;
      }
      if (how_ == Answer::kWritesThenDeclines) caches->ring.bytes.data()[0] ^= 1;
      if (how_ == Answer::kDeclineSticks) sticky_ = true;
      *error = Error{"backend", -1, kMissingCapability, "no ring positions"};
      return Status::kNotImplemented;
    }
    const Status status = ReferenceBackend::step_update(input, caches, output, error);
    if (sticky_ && status == Status::kOk) output->step_status = StepStatus::kPositionOutOfRange;
    sticky_ = false;
    return status;
  }
  int excluded_calls() const { return excluded_calls_; }

 private:
  static bool lacks(const StepInput& input) { return input.config.ring_positions || input.position_axes == 3; }
  Answer how_;
  int excluded_calls_ = 0;
  bool sticky_ = false;
};

TEST(ScenarioRunner, ACallTheDeclaredLimitsExcludeIsSentAndADeclineIsCounted) {
  TextModelBackend backend;
  engine::InputSpaceCoverage coverage;
  engine::RunOptions options;
  options.input_space = &coverage;
  const auto failure = engine::run_scenario(testing::hand_scenario(), backend, options);
  EXPECT_FALSE(failure.has_value()) << engine::to_string(*failure);
  EXPECT_EQ(backend.excluded_calls(), 1) << "the step-status call before step 8 (the hand scenario has 19 steps)";
  EXPECT_EQ(coverage.at(engine::InputClassId::kCallDeclinedBeforeStep).count, 1);
  EXPECT_TRUE(coverage.reached(engine::InputClassId::kCallDeclinedBeforeStep));
  // The reference declares nothing: the same scenario sends it no such call and counts none.
  reference::ReferenceBackend reference;
  engine::InputSpaceCoverage none;
  options.input_space = &none;
  EXPECT_FALSE(engine::run_scenario(testing::hand_scenario(), reference, options).has_value());
  EXPECT_EQ(none.at(engine::InputClassId::kCallDeclinedBeforeStep).count, 0);
  EXPECT_EQ(none.at(engine::InputClassId::kCallStepStatusBeforeStep).count, 1);
}

TEST(ScenarioRunner, EveryAnswerToAnExcludedCallButADeclineIsCaughtAtItsStep) {
  using A = TextModelBackend::Answer;
  const struct {
    A how;
    engine::CheckId check;
  } cases[] = {{A::kRunsIt, engine::Check::kStepUpdateStatus},
               {A::kRejects, engine::Check::kStepUpdateStatus},
               {A::kWritesThenDeclines, engine::Check::kStepUpdateUntouched},
               // The decline itself is right; what it left in the instance shows at the valid step after it.
               {A::kDeclineSticks, engine::Check::kStepStatus}};
  for (const auto& c : cases) {
    TextModelBackend backend(c.how);
    const auto failure = engine::run_scenario(testing::hand_scenario(), backend);
    ASSERT_TRUE(failure.has_value()) << static_cast<int>(c.how);
    EXPECT_EQ(failure->step, 8) << engine::to_string(*failure);
    EXPECT_EQ(failure->check, c.check) << engine::to_string(*failure);
    EXPECT_NE(failure->message.find("step-status call before step 8"), std::string::npos) << failure->message;
  }
}

TEST(ScenarioRunner, ContradictoryScenarioIsReportedAsInvalid) {
  traces::Scenario s = testing::hand_scenario();
  s.steps[1].chunks[0].start = 10;  // request 2 committed 9 positions
  reference::ReferenceBackend backend;
  const auto failure = engine::run_scenario(s, backend);
  ASSERT_TRUE(failure.has_value());
  EXPECT_TRUE(failure->invalid_scenario);
  EXPECT_EQ(failure->step, 1);
}

TEST(ScenarioConfig, MropeSectionsAreValidForEveryRotaryDim) {
  traces::ScenarioConfig c;
  c.mrope = true;
  for (int64_t rd = 2; rd <= 512; rd += 2) {
    c.rotary_dim = rd;
    const auto s = c.mrope_sections();
    ASSERT_TRUE(s.has_value());
    EXPECT_TRUE((*s)[0] >= 0 && (*s)[1] >= 0 && (*s)[2] >= 0) << "rd " << rd;
    EXPECT_EQ((*s)[0] + (*s)[1] + (*s)[2], rd / 2) << "rd " << rd;
  }
  c.rotary_dim = 64;
  EXPECT_EQ(c.mrope_sections(), (std::array<int64_t, 3>{11, 11, 10})) << "the real model's sections";
  c.rotary_dim = 2;
  EXPECT_EQ(c.mrope_sections(), (std::array<int64_t, 3>{0, 1, 0})) << "fuzz/regressions/fuzz_scenario/07d04daa...";
}

TEST(ScenarioFile, WritesAndReadsBackTheSameScenario) {
  const traces::Scenario s = testing::hand_scenario(true, StoreDtype::kFp8E4m3);
  traces::StepDigest digest;
  digest.set("q_out", 0x0123456789abcdefull);
  digest.set("metadata.ring", 42);
  std::stringstream text;
  traces::write_scenario(text, s, std::vector<traces::StepDigest>(s.steps.size(), digest));
  const traces::ScenarioFile back = traces::read_scenario(text);
  EXPECT_TRUE(back.scenario.config == s.config);
  ASSERT_EQ(back.scenario.steps.size(), s.steps.size());
  for (size_t i = 0; i < s.steps.size(); ++i) EXPECT_TRUE(back.scenario.steps[i] == s.steps[i]) << i;
  EXPECT_EQ(back.digests, std::vector<traces::StepDigest>(s.steps.size(), digest));
  EXPECT_EQ(back.digests[0].outputs.front().first, "metadata.ring") << "entries keep the report order";
}

// The error reading `text` as a scenario file reports (empty when it reads).
Error scenario_error(const std::string& text) {
  std::stringstream in(text);
  try {
    traces::read_scenario(in);
  } catch (const InputError& e) {
    return e.error();
  }
  return Error{};
}

// The header line of the hand scenario's file.
std::string hand_scenario_header() {
  std::stringstream file;
  traces::write_scenario(file, testing::hand_scenario());
  return file.str().substr(0, file.str().find('\n') + 1);
}

TEST(ScenarioFile, DigestsAreObjectsOfKnownOutputsOnEveryStepOrNone) {
  const std::string header = hand_scenario_header();
  const std::string step0 = "{\"step\": 0, \"reorder_batch_threshold\": 1, \"chunks\": []";
  const std::string step1 = "{\"step\": 1, \"reorder_batch_threshold\": 1, \"chunks\": []";
  const std::string digest = ", \"digest\": {\"q_out\": \"00000000000000ff\"}}\n";
  EXPECT_EQ(scenario_error(header + step0 + digest + step1 + digest).rule, "");
  EXPECT_EQ(scenario_error(header + step0 + digest + step1 + "}\n").rule, "partial");
  EXPECT_EQ(scenario_error(header + step0 + "}\n" + step1 + digest).rule, "partial");
  EXPECT_EQ(scenario_error(header + step0 + ", \"digest\": \"9f1c\"}\n").rule, "wrong-type");
  EXPECT_EQ(scenario_error(header + step0 + ", \"digest\": {}}\n").rule, "empty");
  EXPECT_EQ(scenario_error(header + step0 + ", \"digest\": {\"q_out\": \"00000000000000FF\"}}\n").rule, "wrong-type");
  const Error unknown = scenario_error(header + step0 + ", \"digest\": {\"k_out\": \"00000000000000ff\"}}\n");
  EXPECT_EQ(unknown.rule, "unknown-field");
  EXPECT_EQ(unknown.field, "digest.k_out");
}

TEST(ScenarioRunner, DigestsNameTheStepAndTheFirstDifferingOutput) {
  const traces::Scenario s = testing::hand_scenario();
  reference::ReferenceBackend reference;
  engine::RunOptions record;
  record.compute_digests = true;
  engine::ScenarioRunner recorder(s.config, reference, record);
  std::vector<traces::StepDigest> digests;
  engine::StepObserver keep;
  keep.after_step = [&](int64_t, const traces::StepRecord&, const engine::ScenarioRunner& r, bool) {
    digests.push_back(r.last_digest());
  };
  ASSERT_FALSE(engine::run_steps(recorder, s.steps, keep).failure.has_value());
  for (const traces::StepDigest& digest : digests) EXPECT_EQ(digest.outputs.size(), traces::kDigestOutputs.size());
  engine::RunOptions replay;
  replay.expected_digests = &digests;
  EXPECT_FALSE(engine::run_scenario(s, reference, replay).has_value()) << "the reference reproduces its own digests";

  // A recorded digest that no longer matches (as when the reference's behaviour changed) is named
  // by its step and output; the outputs before it agree.
  std::vector<traces::StepDigest> stale = digests;
  stale[5].set("cache.ring", stale[5].find("cache.ring").value() + 1);
  replay.expected_digests = &stale;
  const auto failure = engine::run_scenario(s, reference, replay);
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->check, engine::Check::kDigest);
  EXPECT_EQ(failure->step, 5);
  EXPECT_EQ(failure->message.rfind(
                "output cache.ring: expected " + traces::digest_hex(stale[5].find("cache.ring").value()), 0),
            0u)
      << failure->message;

  traces::StepDigest changed = digests[3];
  changed.set("q_out", changed.find("q_out").value() ^ 1);
  const auto difference = traces::compare_digests(digests[3], changed);
  ASSERT_TRUE(difference.has_value());
  EXPECT_EQ(difference->rfind("q_out: expected ", 0), 0u) << *difference;
}

TEST(ScenarioFile, ErrorsNameFieldLineAndRule) {
  const std::string header = hand_scenario_header();
  EXPECT_EQ(scenario_error("").rule, "empty");
  EXPECT_EQ(scenario_error("{\"format\": \"other\"}\n").rule, "not-a-scenario");
  const Error bad_step =
      scenario_error(header + "{\"step\": 0, \"reorder_batch_threshold\": 1, \"chunks\": [{\"request\": 1}]}\n");
  EXPECT_EQ(bad_step.index, 2);  // the line
  EXPECT_EQ(bad_step.rule, "missing");
  std::string bad_ring = header;
  bad_ring.replace(bad_ring.find("\"ring_capacity\":8"), 17, "\"ring_capacity\":7");
  EXPECT_EQ(scenario_error(bad_ring).rule, "spec-3");
  EXPECT_EQ(scenario_error(header + "{\"step\": 3, \"reorder_batch_threshold\": 1, \"chunks\": []}\n").rule,
            "out-of-order");
  EXPECT_EQ(scenario_error(header + "{not json\n").rule, "malformed-json");
  const Error no_blocks =
      scenario_error(header +
                     "{\"step\": 0, \"reorder_batch_threshold\": 1, \"chunks\": [{\"request\": 1, \"prompt_len\": 3, "
                     "\"start\": 0, \"length\": 3, \"accepted\": 3, \"ring_block\": 0}]}\n");
  EXPECT_EQ(no_blocks.field, "chunks[0].blocks") << "required: FORMAT.md gives it no default";
  EXPECT_EQ(no_blocks.rule, "missing");
  const Error wide_ring =
      scenario_error(header +
                     "{\"step\": 0, \"reorder_batch_threshold\": 1, \"chunks\": [{\"request\": 1, \"prompt_len\": 3, "
                     "\"start\": 0, \"length\": 3, \"accepted\": 3, \"blocks\": [], \"ring_block\": 82147483647}]}\n");
  EXPECT_EQ(wide_ring.field, "chunks[0].ring_block") << "checked before it is narrowed to int32";
  EXPECT_EQ(wide_ring.rule, "out-of-range");
  const Error empty_key = scenario_error(header.substr(0, header.rfind('}')) + ", \"\": []}\n");
  EXPECT_EQ(empty_key.field, "\"\"") << "the empty key is named, not an empty field";
  EXPECT_EQ(empty_key.rule, "unknown-field");
  auto with_seed = [&](const std::string& value) {  // the header with another seed value
    std::string h = header;
    const size_t at = h.find("\"seed\":") + 7;
    return h.replace(at, h.find(',', at) - at, value);
  };
  EXPECT_EQ(scenario_error(with_seed("-1")).field, "config.seed")
      << "a negative seed is rejected: it would be written back as 2^64 - 1";
  const std::string empty_step = "{\"step\": 0, \"reorder_batch_threshold\": 1, \"chunks\": []}\n";
  std::stringstream big(with_seed("18446744073709551615") + empty_step);
  EXPECT_EQ(traces::read_scenario(big).scenario.config.seed, 18446744073709551615ull) << "every uint64 seed reads back";
  EXPECT_EQ(scenario_error("8e388\n").rule, "malformed-json")
      << "fuzz/regressions/fuzz_trace_reader/8a886297...: a number beyond double";
  EXPECT_EQ(scenario_error(header + "{\"step\": 0, \"reorder_batch_threshold\": 1e999, \"chunks\": []}\n").index, 2);
  const Error no_steps = scenario_error(header);
  EXPECT_EQ(no_steps.field, "steps") << "a header alone is not a scenario";
  EXPECT_EQ(no_steps.rule, "empty");
  const Error twice = scenario_error(with_seed("1, \"seed\": 2") + empty_step);
  EXPECT_EQ(twice.field, "config.seed");
  EXPECT_EQ(twice.rule, "duplicate-key");
  const Error unknown = scenario_error(header +
                                       "{\"step\": 0, \"reorder_batch_threshold\": 1, \"chunks\": [], "
                                       "\"finished\": [5]}\n");
  EXPECT_EQ(unknown.field, "finished");
  EXPECT_EQ(unknown.rule, "unknown-request");
}

TEST(Shrinker, KeepsOnlyWhatTheFailureNeeds) {
  // The failure: request 2 appears at step 4 or later. Only request 2 and the steps up to its
  // recompute are needed.
  const traces::Scenario s = testing::hand_scenario();
  auto failing = [](const traces::Scenario& candidate) -> std::optional<int64_t> {
    for (size_t i = 0; i < candidate.steps.size(); ++i)
      for (const auto& chunk : candidate.steps[i].chunks)
        if (chunk.request == 2 && chunk.start == 0 && chunk.length == 18) return static_cast<int64_t>(i);
    return std::nullopt;
  };
  engine::ShrinkStats stats;
  const traces::Scenario small = engine::shrink_scenario(s, failing, 200, {}, &stats);
  EXPECT_EQ(engine::requests_of(small), std::vector<int64_t>{2});
  EXPECT_EQ(small.steps.size(), 5u);  // steps 0, 1, 2, 3 (preemption) and 4 (recompute)
  EXPECT_GT(stats.accepted, 0);
  for (const auto& step : small.steps) EXPECT_EQ(step.padding_tokens, 0);
}

}  // namespace
}  // namespace qsa
