#include "qsa/traces/simulator.hpp"

#include <algorithm>
#include <stdexcept>

#include "simulator_state.hpp"

namespace qsa::traces {

namespace {
// Independent sub-streams of one seed, so a change in how one aspect draws leaves the others alone.
enum Stream : uint64_t {
  kArrivals = 1,
  kLengths,
  kDrafts,
  kPreempt,
  kPadding,
  kNegative,
  kFamily,
  kPool,
  kRingPool,
  kFar,
  kZeroFirst,
  kStepEdges
};
}  // namespace

Simulator::State::State(const Workload& w, uint64_t seed)
    : workload(resolve_workload(w, seed)),
      config(workload.config),
      arrival_rng(Rng(hash_words(seed, 0x73696dull)).fork(kArrivals)),
      length_rng(Rng(hash_words(seed, 0x73696dull)).fork(kLengths)),
      draft_rng(Rng(hash_words(seed, 0x73696dull)).fork(kDrafts)),
      preempt_rng(Rng(hash_words(seed, 0x73696dull)).fork(kPreempt)),
      padding_rng(Rng(hash_words(seed, 0x73696dull)).fork(kPadding)),
      negative_rng(Rng(hash_words(seed, 0x73696dull)).fork(kNegative)),
      family_rng(Rng(hash_words(seed, 0x73696dull)).fork(kFamily)),
      far_rng(Rng(hash_words(seed, 0x73696dull)).fork(kFar)),
      zero_first_rng(Rng(hash_words(seed, 0x73696dull)).fork(kZeroFirst)),
      step_edge_rng(Rng(hash_words(seed, 0x73696dull)).fork(kStepEdges)),
      compressed_pool(static_cast<int32_t>(config.num_compressed_blocks),
                      Rng(hash_words(seed, 0x73696dull)).fork(kPool)),
      ring_pool(static_cast<int32_t>(config.num_ring_blocks), Rng(hash_words(seed, 0x73696dull)).fork(kRingPool)),
      capture_sizes(cuda_graph_capture_sizes(config.max_num_batched_tokens)),
      family_prompt_len(static_cast<size_t>(std::max<int64_t>(0, workload.num_families)), 0) {
  for (int64_t i = 0; i < workload.initial_requests; ++i) add_request();
}

void Simulator::State::arrive() {
  if (workload.schedule) {  // a replayed log: everything logged up to this step's time
    const std::vector<LoggedArrival>& log = workload.schedule->arrivals;
    while (next_logged < log.size() && log[next_logged].arrival_us <= clock_us) add_logged_request(next_logged++);
    return;
  }
  // Binomial(n, mean / n) with n >= 8: close to Poisson, in integer arithmetic only.
  const int64_t mean_milli = arrival_rate_milli(workload);
  if (mean_milli <= 0) return;
  const int64_t trials = 8 * (1 + mean_milli / 1000);
  for (int64_t i = 0; i < trials; ++i)
    if (arrival_rng.chance(static_cast<uint64_t>(mean_milli), static_cast<uint64_t>(trials * 1000))) add_request();
}

void Simulator::State::add_logged_request(size_t index) {
  const LoggedArrival& a = workload.schedule->arrivals[index];
  ++arrived;
  SimRequest r;
  r.id = next_id++;
  r.logged = static_cast<int64_t>(index);
  r.family = a.family;
  r.prompt_len = a.prompt_len;
  r.final_len = a.prompt_len + a.output_len - 1;
  r.family_len = a.family_len;
  r.prefill_target = r.prompt_len;
  chain_family_blocks(r);
  waiting.push_back(std::move(r));
}

void Simulator::State::add_request() {
  if (workload.schedule) {  // idle: time passes to the log's next arrival
    const std::vector<LoggedArrival>& log = workload.schedule->arrivals;
    if (next_logged < log.size()) clock_us = std::max(clock_us, log[next_logged].arrival_us);
    arrive();
    return;
  }
  if (workload.max_requests > 0 && arrived >= workload.max_requests) return;
  if (static_cast<int64_t>(waiting.size()) >= workload.max_waiting) return;  // overloaded: the request is dropped
  ++arrived;
  SimRequest r;
  r.id = next_id++;
  r.prompt_len = scaled_length(workload.prompt_tokens.sample(length_rng), workload.prompt_length_scale);
  const int64_t output_len = scaled_length(workload.output_tokens.sample(length_rng), workload.output_length_scale);
  if (!family_prompt_len.empty() && family_rng.chance(static_cast<uint64_t>(workload.family_per_mille), 1000)) {
    r.family = static_cast<int64_t>(family_rng.below(family_prompt_len.size()));
    int64_t& base = family_prompt_len[static_cast<size_t>(r.family)];
    if (base == 0) base = r.prompt_len;
    // Members of a family have about the family's prompt length (a shared system prompt), so that
    // hits are common; a quarter are shorter.
    r.prompt_len = family_rng.chance(1, 4) ? family_rng.range(1, base) : base + family_rng.range(0, base / 4);
    // The sampled length bounds max_position: stay below the table's maximum.
    r.prompt_len = std::min(r.prompt_len, scaled_length(workload.prompt_tokens.max(), workload.prompt_length_scale));
  }
  r.final_len = r.prompt_len + output_len - 1;
  r.prefill_target = r.prompt_len;
  chain_family_blocks(r);
  waiting.push_back(std::move(r));
}

Simulator::Simulator(const Workload& workload, uint64_t seed) : state_(std::make_unique<State>(workload, seed)) {}
Simulator::~Simulator() = default;
Simulator::Simulator(Simulator&&) noexcept = default;
Simulator& Simulator::operator=(Simulator&&) noexcept = default;

const ScenarioConfig& Simulator::config() const { return state_->config; }

int64_t Simulator::evictions() const { return state_->evictions; }

bool Simulator::done() const {
  const State& s = *state_;
  return s.workload.max_requests > 0 && s.arrived >= s.workload.max_requests && s.running.empty() && s.waiting.empty();
}

StepRecord Simulator::next() {
  if (done()) throw std::logic_error("Simulator::next() after done()");
  State& s = *state_;
  s.arrive();
  // Nothing to run: time passes unrecorded until the next request arrives.
  if (s.running.empty() && s.waiting.empty()) s.add_request();

  StepRecord step;
  step.reorder_batch_threshold = 1 + s.config.num_speculative_tokens;
  std::vector<Planned> planned;
  s.schedule(step, planned);
  if (step.chunks.empty()) throw std::logic_error("simulator: a step scheduled nothing (pool sizing bug)");
  s.verify(step, planned);
  for (ChunkRecord& chunk : step.chunks) s.mark_negative_common_slots(chunk);
  s.retire_finished(step);
  s.preempt(step);

  // vLLM's reorder_batch_to_split_decodes_and_prefills: chunks of at most T rows first.
  std::stable_partition(step.chunks.begin(), step.chunks.end(),
                        [&](const ChunkRecord& c) { return c.length <= step.reorder_batch_threshold; });
  pad_for_cuda_graphs(step, s.workload.padding, s.capture_sizes, s.config.max_num_seqs, s.padding_rng);
  s.shape_step_edges(step);
  int64_t rows = 0;
  for (const ChunkRecord& chunk : step.chunks) rows += chunk.length;
  s.clock_us += replay_step_us(rows);  // only a replayed log reads it
  return step;
}

Scenario simulate(const Workload& workload, uint64_t seed, int64_t steps) {
  Simulator simulator(workload, seed);
  Scenario scenario;
  scenario.config = simulator.config();
  for (int64_t i = 0; i < steps && !simulator.done(); ++i) scenario.steps.push_back(simulator.next());
  return scenario;
}

}  // namespace qsa::traces
