#include "qsa/traces/interleaved_calls.hpp"

#include <algorithm>
#include <cstring>

#include "qsa/traces/rng.hpp"
#include "qsa/traces/scenario_caches.hpp"
#include "qsa/traces/scenario_state.hpp"

namespace qsa::traces {
namespace {

constexpr uint64_t kOtherConfigurationStream = 0x6f74686572ull;  // "other"

ChunkRecord chunk(int64_t request, int64_t start, int64_t length, std::vector<int32_t> blocks, int32_t ring_block) {
  ChunkRecord c;
  c.request = request;
  c.prompt_len = start + length;
  c.start = start;
  c.length = length;
  c.accepted = length;
  c.blocks = std::move(blocks);
  c.ring_block = ring_block;
  // A chunk past 0 on a fresh request: its context counts as already in the caches (the ring row
  // this call plants is the only one it reads).
  c.prefilled = start > 0;
  return c;
}

}  // namespace

CallBeforeStep call_before_step(const ScenarioConfig& config, int64_t index) {
  if (config.content_version < 3 || index < 0) return CallBeforeStep::kNone;
  switch (index % (2 * kCallsEvery)) {
    case 0:
    case kCallsEvery:
      return CallBeforeStep::kRejected;
    case kCallsEvery / 2:
      return CallBeforeStep::kStepStatus;
    case kCallsEvery + kCallsEvery / 2:
      return CallBeforeStep::kOtherConfiguration;
    default:
      return CallBeforeStep::kNone;
  }
}

struct InterleavedCalls::Call {
  ScenarioConfig config;
  StepRecord record;
  ScenarioState state;
  Call(const ScenarioConfig& c, StepRecord r) : config(c), record(std::move(r)), state(config) {}
  InterleavedStep build(int64_t index) const {
    InterleavedStep call;
    call.input = state.step_input(record, index);
    call.caches = make_caches(config, 0);
    return call;
  }
};

InterleavedCalls::InterleavedCalls(const ScenarioConfig& scenario) : scenario_(scenario) {}
InterleavedCalls::~InterleavedCalls() = default;

InterleavedStep InterleavedCalls::step_status_call(int64_t index) {
  if (!status_) {
    ScenarioConfig config = scenario_;
    const int64_t c = config.compress_ratio;
    config.mrope = true;  // the ring caches (t, h, w): a group position comes from the ring (SPEC 5)
    // Room for request 0's chunk [c + 1, 2c) and MRoPE's 64 positions past the logical ones, and no
    // more (a scenario's table may have 2^18 rows).
    config.max_position = std::max<int64_t>(256, 2 * c + 65);
    config.num_compressed_blocks = 3;
    config.num_ring_blocks = 2;
    // Request 0 closes group 1 (positions c ... 2c - 1) from position c + 1 on: its first member,
    // position c, is read from ring block 0. Request 1 closes group 0 from its own rows.
    StepRecord record;
    record.chunks.push_back(chunk(0, c + 1, c - 1, {0, 1}, 0));
    record.chunks.push_back(chunk(1, 0, c, {2}, 1));
    status_ = std::make_unique<Call>(config, std::move(record));
  }
  InterleavedStep call = status_->build(index);
  // Position c's ring row carries t = max_position: outside [0, max_position), so group 1 is
  // skipped and the step reports position-out-of-range (its key bytes stay zero).
  const ScenarioConfig& config = status_->config;
  const CacheLayout& ring = call.caches.ring.layout;
  const int64_t slot = config.compress_ratio % ring.rows;  // ring block 0
  const int64_t tail[3] = {config.max_position, 0, 0};
  std::memcpy(call.caches.ring.bytes.data() + ring.byte_offset(slot, ring_position_offset(config.head_dim)), tail,
              sizeof tail);
  return call;
}

InterleavedStep InterleavedCalls::other_configuration_call(int64_t index) {
  if (!other_) {
    ScenarioConfig config;
    config.seed = hash_words(scenario_.seed, kOtherConfigurationStream);
    config.content_version = scenario_.content_version;
    config.workload = scenario_.workload;
    config.compress_ratio = scenario_.compress_ratio == 3 ? 2 : 3;
    config.block_size = 2 * config.compress_ratio;  // S = 2
    config.num_speculative_tokens = 0;
    config.ring_capacity = 2 * config.compress_ratio;
    config.head_dim = scenario_.head_dim == 32 ? 64 : 32;
    config.rotary_dim = scenario_.rotary_dim == config.head_dim / 2 ? config.head_dim : config.head_dim / 2;
    config.num_heads = scenario_.num_heads == 1 ? 2 : 1;
    config.mrope = !scenario_.mrope;
    config.store_dtype = scenario_.store_dtype == StoreDtype::kBf16 ? StoreDtype::kFp8E4m3 : StoreDtype::kBf16;
    config.eps = scenario_.eps;
    config.rope_theta = 1e4;
    config.max_position = 256;
    config.num_compressed_blocks = 3;
    config.num_ring_blocks = 2;
    const int64_t c = config.compress_ratio;
    StepRecord record;
    record.chunks.push_back(chunk(0, 0, 2 * c + 1, {0, 1}, 0));  // closes groups 0 and 1, in blocks 0 and 1
    record.chunks.push_back(chunk(1, 0, 1, {2}, 1));
    record.padded_requests = 1;
    record.padding_tokens = 1;
    other_ = std::make_unique<Call>(config, std::move(record));
  }
  return other_->build(index);
}

}  // namespace qsa::traces
