// The rule checker used by simulator_test.cpp must catch broken scenarios, or its silence proves
// nothing: each test breaks one rule in a simulated scenario and expects a report naming it.

#include <set>

#include <gtest/gtest.h>

#include "qsa/traces/simulator.hpp"
#include "support/scenario_rules.hpp"

namespace qsa::testing {
namespace {

using traces::ChunkRecord;
using traces::Scenario;

Scenario simulated(const char* workload = "default", uint64_t seed = 1) {
  return traces::simulate(traces::workload_by_name(workload), seed, 200);
}

bool reports(const Scenario& s, const std::string& rule) {
  for (const std::string& v : scenario_rule_violations(s, true, 100))
    if (v.find(rule) != std::string::npos) return true;
  return false;
}

// The first chunk (step index, chunk index) that satisfies `pred`.
template <class Pred>
ChunkRecord* find_chunk(Scenario& s, Pred pred, size_t* step = nullptr) {
  for (size_t i = 0; i < s.steps.size(); ++i)
    for (ChunkRecord& c : s.steps[i].chunks)
      if (pred(c, s.steps[i])) {
        if (step) *step = i;
        return &c;
      }
  return nullptr;
}

// The first chunk of a request that starts past 0: a prefix hit.
ChunkRecord* find_prefix_hit(Scenario& s, size_t* step = nullptr) {
  std::set<int64_t> seen;
  return find_chunk(
      s, [&](const ChunkRecord& ch, const auto&) { return seen.insert(ch.request).second && ch.start > 0; }, step);
}

TEST(ScenarioRules, ASimulatedScenarioIsClean) { EXPECT_TRUE(scenario_rule_violations(simulated(), true).empty()); }

TEST(ScenarioRules, CatchADecodeThatDoesNotStartAtTheCommittedLength) {
  Scenario s = simulated();
  ChunkRecord* c = find_chunk(s, [](const ChunkRecord& ch, const auto&) { return ch.accepted < ch.length; });
  ASSERT_NE(c, nullptr);
  c->start += 1;  // as if the rejected drafts had been kept
  EXPECT_TRUE(reports(s, "does not start at the committed length"));
}

TEST(ScenarioRules, CatchTwoRequestsOfAStepSharingARingBlock) {
  Scenario s = simulated();
  ChunkRecord* c =
      find_chunk(s, [](const ChunkRecord&, const traces::StepRecord& st) { return st.chunks.size() >= 2; });
  ASSERT_NE(c, nullptr);
  size_t step = 0;
  find_chunk(
      s, [&](const ChunkRecord& ch, const auto&) { return &ch == c; }, &step);
  s.steps[step].chunks[1].ring_block = s.steps[step].chunks[0].ring_block;
  EXPECT_TRUE(reports(s, "ring block shared"));
}

TEST(ScenarioRules, CatchBlocksThatDoNotCoverTheChunk) {
  Scenario s = simulated();
  ChunkRecord* c =
      find_chunk(s, [&](const ChunkRecord& ch, const auto&) { return ch.start + ch.length > s.config.block_size; });
  ASSERT_NE(c, nullptr);
  c->blocks.resize(static_cast<size_t>((c->start + c->length - 1) / s.config.block_size));
  EXPECT_TRUE(reports(s, "blocks do not cover the chunk"));
}

TEST(ScenarioRules, CatchABlockIdBeyondTheCache) {
  Scenario s = simulated();
  s.config.num_compressed_blocks = 3;
  EXPECT_TRUE(reports(s, "outside the compressed cache"));
}

TEST(ScenarioRules, CatchAPrefixHitOnABlockThePeerHasNotFilled) {
  Scenario s = simulated("prefix-sharing");
  std::set<int64_t> seen;
  ChunkRecord* c = find_chunk(s, [&](const ChunkRecord& ch, const auto&) {
    return seen.insert(ch.request).second && ch.family >= 0 && ch.length > s.config.block_size &&
           ch.start + s.config.block_size < ch.prompt_len;
  });
  ASSERT_NE(c, nullptr);
  // Claims the first block it writes itself as shared: nobody has filled it with family content.
  c->start += s.config.block_size;
  c->length -= s.config.block_size;
  c->accepted -= s.config.block_size;
  EXPECT_TRUE(reports(s, "of the family's content"));
}

TEST(ScenarioRules, CatchAWriteIntoASharedBlock) {
  Scenario s = simulated("prefix-sharing");
  ChunkRecord* c = find_prefix_hit(s);
  ASSERT_NE(c, nullptr);
  c->start -= 1;  // the first row now falls in the last shared block
  c->length += 1;
  c->accepted += 1;
  EXPECT_TRUE(reports(s, "writes a shared block"));
}

TEST(ScenarioRules, CatchANegativeCommonSlotOnAPromptRow) {
  Scenario s = simulated();
  ChunkRecord* c = find_chunk(s, [](const ChunkRecord& ch, const auto&) { return ch.start == 0 && ch.length > 1; });
  ASSERT_NE(c, nullptr);
  c->negative_common_slots = {0};
  EXPECT_TRUE(reports(s, "negative common slot on a prompt position"));
}

TEST(ScenarioRules, CatchAnUnpaddedUniformDecodeStep) {
  Scenario s = simulated();
  for (traces::StepRecord& st : s.steps)
    if (traces::is_uniform_decode(st)) {
      const int64_t rows = static_cast<int64_t>(st.chunks.size()) * st.chunks.front().length;
      if (traces::padded_token_count(traces::cuda_graph_capture_sizes(s.config.max_num_batched_tokens), rows) == rows)
        continue;
      st.padding_tokens = 0;
      st.padded_requests = 0;
      break;
    }
  EXPECT_TRUE(reports(s, "not a capture size"));
}

TEST(ScenarioRules, CatchARequestScheduledAfterItFinished) {
  Scenario s = simulated();
  size_t step = 0;
  ASSERT_NE(find_chunk(
                s, [](const ChunkRecord&, const traces::StepRecord& st) { return !st.finished.empty(); }, &step),
            nullptr);
  ASSERT_LT(step + 1, s.steps.size());
  ChunkRecord ghost = s.steps[step].chunks.front();
  ghost.request = s.steps[step].finished.front();
  s.steps[step + 1].chunks.push_back(ghost);
  EXPECT_TRUE(reports(s, "scheduled after it finished"));
}

}  // namespace
}  // namespace qsa::testing
