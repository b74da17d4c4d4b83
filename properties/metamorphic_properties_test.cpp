// Metamorphic property of SPEC 7.1: one committed stream, produced by different schedules (one
// prefill or many chunks, drafts all accepted or mostly rejected, alone or batched with another
// request, on different blocks), leaves the same compressed rows and the same open group.

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "qsa/ring_capacity.hpp"
#include "qsa/engine/step_loop.hpp"
#include "qsa/engine/scenario_runner.hpp"
#include "support/backend_under_test.hpp"
#include "support/gpu_guard.hpp"

namespace qsa {
namespace {

using traces::ChunkRecord;
using traces::Scenario;
using traces::ScenarioConfig;
using traces::StepRecord;

struct Schedule {
  std::vector<int32_t> blocks;  // the target request's compressed blocks
  int32_t ring_block = 0;
  bool chunked_prefill = false;
  bool rejections = false;
  bool neighbour = false;  // another request in the same steps
};

ScenarioConfig gen_config() {
  ScenarioConfig c;
  c.seed = *rc::gen::inRange<uint64_t>(1, 1000);
  c.workload = "metamorphic";
  c.compress_ratio = *rc::gen::element<int64_t>(2, 4, 8);
  c.num_speculative_tokens = *rc::gen::inRange<int64_t>(0, 5);
  c.ring_capacity = seed_ring_capacity(c.compress_ratio, c.num_speculative_tokens);  // SPEC 3
  c.block_size = c.ring_capacity * *rc::gen::element<int64_t>(1, 2);                 // R divides B
  c.head_dim = 32;
  c.rotary_dim = *rc::gen::element<int64_t>(8, 16, 32);
  c.num_heads = 1;
  c.mrope = *rc::gen::arbitrary<bool>();
  c.store_dtype = *rc::gen::element(StoreDtype::kBf16, StoreDtype::kFp8E4m3);
  c.max_position = 512;
  c.num_compressed_blocks = 96;
  c.num_ring_blocks = 4;
  return c;
}

// The steps that take request 0 from nothing to `committed` positions under `schedule`.
Scenario build(const ScenarioConfig& config, int64_t prompt, int64_t committed, int64_t family,
               const Schedule& schedule) {
  Scenario s;
  s.config = config;
  const int64_t drafts = config.num_speculative_tokens;
  int64_t at = 0;
  int64_t neighbour_at = 0;
  while (at < committed) {
    StepRecord step;
    step.reorder_batch_threshold = 1 + drafts;
    ChunkRecord chunk{0, family, prompt, at, 0, 0, schedule.blocks, schedule.ring_block, {}};
    if (at < prompt) {  // prefill
      const int64_t rest = prompt - at;
      chunk.length = schedule.chunked_prefill
                         ? std::min<int64_t>(rest, *rc::gen::inRange<int64_t>(1, 3 * config.compress_ratio + 2))
                         : rest;
      chunk.accepted = chunk.length;
    } else {  // decode with drafts; the accepted ones are the right tokens
      chunk.length = 1 + drafts;
      const int64_t wanted = std::min<int64_t>(1 + drafts, committed - at);
      chunk.accepted =
          schedule.rejections ? std::min<int64_t>(wanted, *rc::gen::inRange<int64_t>(1, drafts + 2)) : wanted;
    }
    step.chunks.push_back(chunk);
    if (schedule.neighbour && *rc::gen::arbitrary<bool>()) {  // request 1 on its own blocks
      const int64_t length = *rc::gen::inRange<int64_t>(1, 2 * config.compress_ratio + 1);
      step.chunks.push_back(ChunkRecord{1, -1, 200, neighbour_at, length, length, {90, 91, 92, 93, 94, 95}, 3, {}});
      neighbour_at += length;
    }
    at += chunk.accepted;
    s.steps.push_back(step);
  }
  return s;
}

std::vector<uint8_t> compressed_row(const StepCaches& caches, const ScenarioConfig& config,
                                    const std::vector<int32_t>& blocks, int64_t group) {
  const int64_t s = config.storage_block_size();
  const CacheLayout& l = caches.compressed.layout;
  const uint8_t* p = caches.compressed.bytes.data() + l.byte_offset(int64_t{blocks[group / s]} * s + group % s, 0);
  return {p, p + l.width * l.element_bytes};
}

TEST(MetamorphicProperties, ScheduleDoesNotChangeTheCompressedRows) {
  QSA_BACKEND_UNDER_TEST(backend);
  const bool passed = rc::check("one committed stream, two schedules, on " + backend->name(), [&] {
    const ScenarioConfig config = gen_config();
    const int64_t c = config.compress_ratio;
    const int64_t prompt = *rc::gen::inRange<int64_t>(1, 64);
    const int64_t committed = prompt + *rc::gen::inRange<int64_t>(0, 40);
    const int64_t family = *rc::gen::element<int64_t>(-1, 5);
    const int64_t blocks_needed = (committed + config.num_speculative_tokens + 1) / config.block_size + 1;
    RC_PRE(blocks_needed <= 40);

    Schedule a;  // one prefill, every draft accepted, alone, blocks 0, 1, 2, ...
    a.blocks.resize(static_cast<size_t>(blocks_needed));
    std::iota(a.blocks.begin(), a.blocks.end(), 0);
    Schedule b;  // chunked prefill, rejections, a neighbour, other blocks in another order
    b.blocks =
        *rc::gen::unique<std::vector<int32_t>>(static_cast<size_t>(blocks_needed), rc::gen::inRange<int32_t>(40, 90));
    b.ring_block = 2;
    b.chunked_prefill = true;
    b.rejections = true;
    b.neighbour = *rc::gen::arbitrary<bool>();

    engine::RunOptions options;
    options.differential = false;  // this property needs no reference run
    engine::ScenarioRunner run_a(config, *backend, options);
    engine::ScenarioRunner run_b(config, *backend, options);
    if (auto f = engine::run_steps(run_a, build(config, prompt, committed, family, a).steps).failure)
      RC_FAIL("schedule A: " + engine::to_string(*f));
    if (auto f = engine::run_steps(run_b, build(config, prompt, committed, family, b).steps).failure)
      RC_FAIL("schedule B: " + engine::to_string(*f));

    for (int64_t g = 0; g < committed / c; ++g)
      if (compressed_row(run_a.caches(), config, a.blocks, g) != compressed_row(run_b.caches(), config, b.blocks, g))
        RC_FAIL("group " + std::to_string(g) + " of request 0 differs between the two schedules");
    const int64_t r = config.ring_capacity;
    const CacheLayout& ring = run_a.caches().ring.layout;
    for (int64_t m = c * (committed / c); m < committed; ++m) {
      const int64_t bytes = ring.width * 2;
      const uint8_t* row_a = run_a.caches().ring.bytes.data() + ring.byte_offset(a.ring_block * r + m % r, 0);
      const uint8_t* row_b = run_b.caches().ring.bytes.data() + ring.byte_offset(b.ring_block * r + m % r, 0);
      if (std::memcmp(row_a, row_b, static_cast<size_t>(bytes)) != 0)
        RC_FAIL("open-group ring row of position " + std::to_string(m) + " differs");
    }
    RC_CLASSIFY(config.mrope, "mrope");
    RC_CLASSIFY(config.store_dtype == StoreDtype::kFp8E4m3, "fp8");
  });
  EXPECT_TRUE(passed) << "replay: " << testing::rerun_command() << " (with the RC_PARAMS printed above)";
}

}  // namespace
}  // namespace qsa
