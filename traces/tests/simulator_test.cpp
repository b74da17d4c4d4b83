// The step simulator (traces/simulator.hpp): determinism, the scheduling rules every scenario
// keeps (checked by an independent model in support/scenario_rules), and what each named workload
// promises. Seeds are fixed; a failure names the workload and the seed, and
// simulate(workload_by_name(NAME), SEED, 200) replays it.

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "qsa/traces/simulator.hpp"
#include "support/scenario_rules.hpp"

namespace qsa::traces {
namespace {

constexpr int64_t kSteps = 200;

// Every field of a scenario as text: equal text <=> equal scenarios.
std::string dump(const Scenario& s) {
  std::ostringstream os;
  const ScenarioConfig& c = s.config;
  os << c.seed << ' ' << c.workload << ' ' << c.compress_ratio << ' ' << c.block_size << ' ' << c.num_speculative_tokens
     << ' ' << c.ring_capacity << ' ' << c.head_dim << ' ' << c.rotary_dim << ' ' << c.num_heads << ' ' << c.mrope
     << ' ' << static_cast<int>(c.store_dtype) << ' ' << c.max_position << ' ' << c.num_compressed_blocks << ' '
     << c.num_ring_blocks << ' ' << c.max_num_batched_tokens << ' ' << c.max_num_seqs << '\n';
  for (const StepRecord& st : s.steps) {
    os << "step " << st.padded_requests << ' ' << st.padding_tokens << ' ' << st.reorder_batch_threshold << " |";
    for (const ChunkRecord& ch : st.chunks) {
      os << ' ' << ch.request << ':' << ch.family << ':' << ch.prompt_len << ':' << ch.start << ':' << ch.length << ':'
         << ch.accepted << ":r" << ch.ring_block << ":b";
      for (int32_t b : ch.blocks) os << b << ',';
      os << ":n";
      for (int64_t n : ch.negative_common_slots) os << n << ',';
    }
    os << " | f";
    for (int64_t id : st.finished) os << ' ' << id;
    os << " p";
    for (int64_t id : st.preempted) os << ' ' << id;
    os << '\n';
  }
  return os.str();
}

std::string replay_hint(const std::string& workload, uint64_t seed) {
  return "replay: simulate(workload_by_name(\"" + workload + "\"), " + std::to_string(seed) + ", " +
         std::to_string(kSteps) + ")";
}

int64_t negative_slots_on_closing_rows(const Scenario& s) {
  int64_t n = 0;
  for (const StepRecord& st : s.steps)
    for (const ChunkRecord& c : st.chunks)
      for (int64_t o : c.negative_common_slots) n += (c.start + o + 1) % s.config.compress_ratio == 0;
  return n;
}

TEST(Simulator, SameSeedGivesTheSameScenario) {
  for (const std::string& name : workload_names()) {
    for (uint64_t seed : {1u, 7u}) {
      const Workload w = workload_by_name(name);
      EXPECT_EQ(dump(simulate(w, seed, kSteps)), dump(simulate(w, seed, kSteps))) << name << " seed " << seed;
    }
  }
}

TEST(Simulator, DifferentSeedsGiveDifferentScenarios) {
  for (const std::string& name : workload_names()) {
    const Workload w = workload_by_name(name);
    EXPECT_NE(dump(simulate(w, 1, 50)), dump(simulate(w, 2, 50))) << name;
  }
}

TEST(Simulator, StepByStepEqualsSimulate) {
  const Workload w = workload_by_name("default");
  Simulator sim(w, 3);
  Scenario stepped;
  stepped.config = sim.config();
  for (int i = 0; i < 100; ++i) stepped.steps.push_back(sim.next());
  EXPECT_EQ(dump(stepped), dump(simulate(w, 3, 100)));
}

TEST(Simulator, EveryWorkloadKeepsTheSchedulingRules) {
  for (const std::string& name : workload_names()) {
    const Workload w = workload_by_name(name);
    const uint64_t seeds = w.mix.empty() ? 4 : 24;
    for (uint64_t seed = 1; seed <= seeds; ++seed) {
      const Scenario s = simulate(w, seed, kSteps);
      ASSERT_EQ(static_cast<int64_t>(s.steps.size()), kSteps) << name;
      const auto violations = testing::scenario_rule_violations(s, w.padding == PaddingPolicy::kVllm, 20,
                                                                testing::edge_shapes_of(resolve_workload(w, seed)));
      std::string text;
      for (const std::string& v : violations) text += "  " + v + "\n";
      EXPECT_TRUE(violations.empty()) << name << " seed " << seed << " (" << s.config.workload << "):\n"
                                      << text << replay_hint(name, seed);
    }
  }
}

TEST(Simulator, AFiniteWorkloadEndsWhenEveryRequestIsDone) {
  Workload w = workload_by_name("default");
  w.max_requests = 10;
  Simulator sim(w, 5);
  std::set<int64_t> finished;
  int64_t steps = 0;
  while (!sim.done() && steps < 10000) {
    for (int64_t id : sim.next().finished) finished.insert(id);
    ++steps;
  }
  EXPECT_TRUE(sim.done());
  EXPECT_EQ(finished.size(), 10u);
  EXPECT_THROW(sim.next(), std::logic_error);
}

// Coverage that every workload must reach over a few 200-step scenarios.
class WorkloadCoverage : public ::testing::TestWithParam<std::string> {};

TEST_P(WorkloadCoverage, WrapsTheRingClosesGroupsPadsAndMarksClosingRowsNegative) {
  const Workload w = workload_by_name(GetParam());
  Coverage total;
  int64_t negative_closing = 0;
  bool any_drafts = false;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    const Scenario s = simulate(w, seed, kSteps);
    total += coverage_of(s);
    negative_closing += negative_slots_on_closing_rows(s);
    any_drafts |= s.config.num_speculative_tokens > 0;
  }
  EXPECT_GE(total.requests, 20);
  EXPECT_GE(total.ring_wraps, 100);
  EXPECT_GE(total.groups_closed, 500);
  EXPECT_GE(total.padded_steps, 60);
  EXPECT_GE(total.preemptions, 1);
  // azure-code's requests barely overlap (outputs of median 3 after scaling, 10 % family prompts):
  // no prefix hit in seeds 1-8 at 200 steps. Its 1 here came from the old count, which took a
  // preempted request's last chunk for a hit (docs/workloads.md "Coverage figures").
  // step-edges has no families on purpose (a group skipped for a missing block must not leave a
  // shared block without its row).
  if (GetParam() != "azure-code" && GetParam() != "step-edges") {
    EXPECT_GE(total.prefix_hits, 1);
  }
  EXPECT_GE(negative_closing, 5);
  if (any_drafts) {
    EXPECT_GE(total.drafts_rejected, 100);
  }
}

INSTANTIATE_TEST_SUITE_P(AllWorkloads, WorkloadCoverage, ::testing::ValuesIn(workload_names()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string n = param.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

TEST(Workloads, TinyBlocksHaveOneGroupPerBlockAndNoDrafts) {
  std::set<int64_t> ratios;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    const Scenario s = simulate(workload_by_name("tiny-blocks"), seed, 20);
    EXPECT_EQ(s.config.block_size, s.config.compress_ratio);
    EXPECT_EQ(s.config.storage_block_size(), 1);
    EXPECT_EQ(s.config.num_speculative_tokens, 0);  // SPEC 3: R = C divides B = C only without drafts
    ratios.insert(s.config.compress_ratio);
  }
  EXPECT_EQ(ratios, (std::set<int64_t>{2, 4, 8}));
}

TEST(Workloads, RatiosDrawEveryCompressRatio) {
  std::set<int64_t> ratios;
  for (uint64_t seed = 1; seed <= 32; ++seed)
    ratios.insert(simulate(workload_by_name("ratios"), seed, 1).config.compress_ratio);
  EXPECT_EQ(ratios, (std::set<int64_t>{2, 4, 8, 16}));
}

TEST(Workloads, ManyDraftsProposeUpToThirteenAndRejectMost) {
  int64_t most_drafts = 0, rejected = 0, accepted_drafts = 0, longest_decode = 0;
  for (uint64_t seed = 1; seed <= 24; ++seed) {
    const Scenario s = simulate(workload_by_name("many-drafts"), seed, 60);
    EXPECT_GE(s.config.num_speculative_tokens, 4);
    most_drafts = std::max(most_drafts, s.config.num_speculative_tokens);
    for (const StepRecord& st : s.steps)
      for (const ChunkRecord& c : st.chunks)
        if (c.start >= c.prompt_len && c.length <= st.reorder_batch_threshold) {  // decodes
          rejected += c.length - c.accepted;
          accepted_drafts += c.accepted - 1;
          longest_decode = std::max(longest_decode, c.length);
        }
  }
  EXPECT_EQ(most_drafts, 13);
  EXPECT_GE(longest_decode, 10);
  EXPECT_GT(rejected, 2 * accepted_drafts);
}

TEST(Workloads, RingMinimumHasNoSlackAndWrapsManyTimes) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const Scenario s = simulate(workload_by_name("ring-minimum"), seed, kSteps);
    const ScenarioConfig& c = s.config;
    EXPECT_EQ(c.ring_capacity, c.compress_ratio + c.num_speculative_tokens) << "seed " << seed;
    int64_t longest = 0;
    for (const StepRecord& st : s.steps)
      for (const ChunkRecord& ch : st.chunks) longest = std::max(longest, ch.start + ch.accepted);
    EXPECT_GE(longest, 10 * c.ring_capacity) << "seed " << seed;  // one request wrapped the ring 10 times
    EXPECT_GE(coverage_of(s).ring_wraps, 50) << "seed " << seed;
  }
}

TEST(Workloads, ProductionBlocksUseEveryProductionBlockSize) {
  std::set<int64_t> sizes;
  int64_t hits = 0;
  for (uint64_t seed = 1; seed <= 48; ++seed) {
    const Scenario s = simulate(workload_by_name("production-blocks"), seed, seed <= 8 ? kSteps : 1);
    EXPECT_EQ(s.config.compress_ratio, 4);
    EXPECT_EQ(s.config.ring_capacity, 8);
    sizes.insert(s.config.block_size);
    hits += coverage_of(s).prefix_hits;
  }
  EXPECT_EQ(sizes, (std::set<int64_t>{16, 784, 800, 848, 1568, 1600, 1616}));
  EXPECT_GE(hits, 5);
}

TEST(Workloads, PreemptionStormRecomputesFromZeroOrACachedPrefix) {
  const Scenario s = simulate(workload_by_name("preemption-storm"), 1, kSteps);
  EXPECT_GE(coverage_of(s).preemptions, 30);
  std::set<int64_t> preempted;
  int64_t recomputes = 0;
  for (const StepRecord& st : s.steps) {
    for (const ChunkRecord& c : st.chunks)
      if (preempted.erase(c.request)) {
        // vLLM's prefix cache keeps the blocks of a preempted request: its recompute may hit them.
        const bool hit = c.family >= 0 && c.start % s.config.block_size == 0 && c.start < c.prompt_len;
        EXPECT_TRUE(c.start == 0 || hit) << "request " << c.request << " restarts at " << c.start;
        ++recomputes;
      }
    preempted.insert(st.preempted.begin(), st.preempted.end());
  }
  EXPECT_GE(recomputes, 20);
}

TEST(Workloads, PrefixSharingStartsManyFirstChunksOnSharedBlocks) {
  Coverage total;
  for (uint64_t seed = 1; seed <= 3; ++seed)
    total += coverage_of(simulate(workload_by_name("prefix-sharing"), seed, kSteps));
  EXPECT_GE(total.prefix_hits, 60);
}

TEST(Workloads, MropeFp8TurnsOnMropeAndFp8Storage) {
  const Coverage c = coverage_of(simulate(workload_by_name("mrope-fp8"), 1, 50));
  EXPECT_EQ(c.mrope_steps, 50);
  EXPECT_EQ(c.fp8_steps, 50);
}

TEST(Workloads, AdversarialDrawsEveryMember) {
  const Workload w = workload_by_name("adversarial");
  std::set<std::string> drawn;
  for (uint64_t seed = 1; seed <= 64; ++seed) drawn.insert(simulate(w, seed, 1).config.workload);
  EXPECT_EQ(drawn.size(), w.mix.size());
  for (const Workload& member : w.mix) EXPECT_TRUE(drawn.count("adversarial:" + member.name)) << member.name;
}

}  // namespace
}  // namespace qsa::traces
