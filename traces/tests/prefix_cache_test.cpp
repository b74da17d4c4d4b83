// The simulator's prefix cache (docs/decisions.md "Prefix cache"): the block pool's evictable queue,
// hits on blocks of finished requests, deep hits, hits after a block id was reused, and a later
// conversation turn that reads the bytes an earlier turn decoded; every such scenario passes the
// reference with every check.

#include <algorithm>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>
#include <set>

#include <gtest/gtest.h>

#include "qsa/reference/reference_backend.hpp"
#include "qsa/traces/block_pool.hpp"
#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/log_reuse.hpp"
#include "qsa/traces/prefix_hits.hpp"
#include "qsa/traces/request_replay.hpp"
#include "qsa/engine/step_loop.hpp"
#include "qsa/engine/scenario_runner.hpp"
#include "qsa/traces/scenario_state.hpp"
#include "qsa/traces/simulator.hpp"
#include "support/scenario_rules.hpp"

namespace qsa::traces {
namespace {

std::optional<engine::RunFailure> run_on_reference(const Scenario& s) {
  reference::ReferenceBackend reference;
  engine::RunOptions options;
  options.sweep_every = 1;  // every live request's every group, after every step
  engine::ScenarioRunner runner(s.config, reference, options);
  return engine::run_steps(runner, s.steps).failure;
}

PrefixHitCounts hits_of(const Scenario& s) {
  PrefixHitTracker tracker(s.config);
  for (const StepRecord& step : s.steps) tracker.add(step);
  return tracker.counts();
}

TEST(BlockPool, CachedBlocksAreEvictedOnlyWhenNoOtherIsFreeOldestFirst) {
  BlockPool pool(4, Rng(3));
  const int32_t a = pool.allocate(), b = pool.allocate(), c = pool.allocate();
  pool.set_cached(a, true);
  pool.set_cached(b, true);
  pool.release(b);  // released first: evicted first
  pool.release(a);
  pool.release(c);  // uncached: an ordinary free block
  EXPECT_EQ(pool.free_count(), 4);
  EXPECT_EQ(pool.evictable_count(), 2);
  const int32_t x = pool.allocate(), y = pool.allocate();
  EXPECT_FALSE(x == a || x == b || y == a || y == b) << "a cached block went before the uncached ones";
  EXPECT_EQ(pool.allocate(), b);
  EXPECT_FALSE(pool.cached(b));
  pool.share(a);  // a hit on the queued block takes it back
  EXPECT_EQ(pool.evictable_count(), 0);
  EXPECT_EQ(pool.refcount(a), 1);
  EXPECT_THROW(pool.allocate(), std::logic_error);
}

// Hash blocks of 64 tokens. Turn 1 (prompt 256: hashes 1-4) decodes 280 tokens and has finished long
// before turn 2 arrives; turn 2's prompt is turn 1's prompt, its output and a new message (hashes
// 1-10, 640 tokens). Turn 1 commits 535 positions: 8 whole hash blocks, so positions 256-511 of its
// output are the family's content and turn 2 hits 512 positions, past turn 1's prompt.
const char* const kTwoTurns =
    R"({"timestamp": 0, "input_length": 256, "output_length": 280, "hash_ids": [1, 2, 3, 4]}
{"timestamp": 600000, "input_length": 640, "output_length": 8, "hash_ids": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}
)";

TEST(PrefixCache, ALaterTurnHitsTheBlocksAnEarlierTurnDecoded) {
  const RequestLog log = parse_request_log(kTwoTurns, "two-turns.jsonl", RequestLogFormat::kJsonl, 64);
  std::set<int64_t> block_sizes;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const Scenario s = simulate(workload_from_request_log(log, {}), seed, 10000);
    block_sizes.insert(s.config.block_size);
    bool turn1_finished = false, hit_seen = false;
    for (const StepRecord& st : s.steps) {
      for (const ChunkRecord& c : st.chunks) {
        if (c.request == 0) {
          EXPECT_EQ(c.family_len, 512);
        }
        if (c.request == 1 && !hit_seen) {
          hit_seen = true;
          EXPECT_TRUE(turn1_finished);
          EXPECT_EQ(c.start, 512) << "B " << s.config.block_size;
        }
      }
      turn1_finished |= std::count(st.finished.begin(), st.finished.end(), 0) > 0;
    }
    EXPECT_TRUE(hit_seen);
    EXPECT_EQ(hits_of(s).on_finished, 1);
    EXPECT_TRUE(testing::scenario_rule_violations(s, true).empty());
    const auto failure = run_on_reference(s);
    EXPECT_FALSE(failure) << to_string(*failure);
  }
  EXPECT_EQ(block_sizes, (std::set<int64_t>{16, 64}));

  // What turn 2 reads at a position turn 1 decoded is the key turn 1 committed there.
  RequestLedger turn1, turn2;
  turn1.request = 0, turn1.family = 0, turn1.prompt_len = 256, turn1.family_len = 512;
  turn2.request = 1, turn2.family = 0, turn2.prompt_len = 640;
  EXPECT_EQ(turn1.committed_origin(400), turn2.committed_origin(400));
  turn1.family_len = 0;  // without it the decoded token would be turn 1's own
  EXPECT_FALSE(turn1.committed_origin(400) == turn2.committed_origin(400));
}

TEST(PrefixCache, LogImpliedReuseCountsLeadingHashBlocksOfEarlierPromptsOnly) {
  const RequestLog log = parse_request_log(kTwoTurns, "two-turns.jsonl", RequestLogFormat::kJsonl, 64);
  const LogReuse reuse = log_implied_reuse(log, {}, 16);
  // Turn 2 starts with turn 1's 4 prompt hash blocks; the blocks of turn 1's output are in no
  // earlier prompt, so the replay (512) reuses more than the log implies (256).
  EXPECT_EQ(reuse.per_request, (std::vector<int64_t>{0, 256}));
  EXPECT_EQ(reuse.prompt_positions, 256 + 640);
}

TEST(PrefixCache, FamilyWorkloadsHitFinishedDeepReusedAndCrowdedBlocksAndPassTheReference) {
  PrefixHitCounts total;
  for (const char* name : {"prefix-sharing", "default"})
    for (uint64_t seed = 1; seed <= 2; ++seed) {
      const Scenario s = simulate(workload_by_name(name), seed, 300);
      total += hits_of(s);
      const auto failure = run_on_reference(s);
      EXPECT_FALSE(failure) << name << " seed " << seed << ": " << to_string(*failure);
    }
  EXPECT_GT(total.on_finished, 0);
  EXPECT_GT(total.deeper_than_one, 0);
  EXPECT_GT(total.after_eviction, 0);
  EXPECT_GT(total.shared_by_live, 0);
}

// A conversation log in the multi-turn generator's shape (traces/tools/multiturn_log.py): 24
// conversations of 3 turns on one 256-token system prompt (hash blocks 1-4), each turn's prompt the
// previous prompt, its answer and a new message; conversations start 400 ms apart and a turn follows
// 3 s after the previous one.
RequestLog conversation_log() {
  std::string text;
  std::vector<std::string> lines;
  std::vector<std::pair<int64_t, std::string>> requests;
  for (int64_t c = 0; c < 24; ++c) {
    int64_t length = 256 + 64 + 16 * (c % 5);
    for (int64_t k = 0; k < 3; ++k) {
      const int64_t output = 96 + 8 * ((c + k) % 4);
      std::string hashes;
      for (int64_t i = 0; i * 64 < length; ++i)
        hashes += (i ? ", " : "") + std::to_string(i < 4 ? i + 1 : 1000 * (c + 1) + i);
      const int64_t at = 400 * c + 3000 * k;
      requests.emplace_back(at, R"({"timestamp": )" + std::to_string(at) + R"(, "input_length": )" +
                                    std::to_string(length) + R"(, "output_length": )" + std::to_string(output) +
                                    R"(, "hash_ids": [)" + hashes + "]}\n");
      length += output + 48;
    }
  }
  std::stable_sort(requests.begin(), requests.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [at, line] : requests) text += line;
  return parse_request_log(text, "conversations.jsonl", RequestLogFormat::kJsonl, 64);
}

// --cache-blocks below the working set: the pool evicts cached blocks, later turns miss what was
// evicted and hit blocks rewritten by their new owners, and every step still passes the reference.
// With the default pool (max_num_seqs longest requests) nothing is evicted.
TEST(PrefixCache, ASmallPoolEvictsAndHitsReadRewrittenBlocks) {
  const RequestLog log = conversation_log();
  ReplayOptions options;
  int64_t evicted = 0;
  PrefixHitCounts small_pool;
  for (uint64_t seed = 1; seed <= 2; ++seed) {
    Simulator roomy(workload_from_request_log(log, options), seed);
    while (!roomy.done()) roomy.next();
    EXPECT_EQ(roomy.evictions(), 0) << "seed " << seed;

    options.cache_blocks = 160;
    Simulator simulator(workload_from_request_log(log, options), seed);
    options.cache_blocks = 0;
    Scenario s;
    s.config = simulator.config();
    EXPECT_EQ(s.config.num_compressed_blocks, 160);
    while (!simulator.done()) s.steps.push_back(simulator.next());
    evicted += simulator.evictions();
    small_pool += hits_of(s);
    EXPECT_TRUE(testing::scenario_rule_violations(s, true).empty()) << "seed " << seed;
    const auto failure = run_on_reference(s);
    EXPECT_FALSE(failure) << "seed " << seed << ": " << to_string(*failure);
  }
  std::cout << "evictions " << evicted << ", hits " << small_pool.hits << ", after a block's reuse "
            << small_pool.after_eviction << ", on finished requests " << small_pool.on_finished << "\n";
  EXPECT_GT(evicted, 0);
  EXPECT_GT(small_pool.after_eviction, 0);
  EXPECT_GT(small_pool.on_finished, 0);

  options.cache_blocks = 10;  // below one longest request
  try {
    Simulator too_small(workload_from_request_log(log, options), 1);
    ADD_FAILURE() << "a pool below one longest request was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.error().field, "--cache-blocks");
    EXPECT_EQ(e.error().rule, "out-of-range");
  }
}

}  // namespace
}  // namespace qsa::traces
