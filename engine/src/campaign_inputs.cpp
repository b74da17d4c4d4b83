#include "qsa/engine/campaign_inputs.hpp"

#include "qsa/engine/job_pool.hpp"
#include "qsa/engine/scenario_runner.hpp"
#include "qsa/traces/extreme_batches.hpp"
#include "qsa/traces/large_buffer_reuse.hpp"
#include "qsa/traces/prefix_hits.hpp"
#include "qsa/traces/scenario_state.hpp"
#include "qsa/traces/simulator.hpp"

namespace qsa::engine {

engine::InputSpaceCoverage job_input_space(const CampaignJob& job) {
  engine::InputSpaceCoverage coverage;
  traces::Simulator simulator(job.workload, job.seed);
  const traces::ScenarioConfig& config = simulator.config();
  traces::ScenarioState state(config);
  traces::PrefixHitTracker prefix_hits(config);
  const CacheLayout compressed = traces::compressed_cache_layout(config);
  const CacheLayout ring = traces::ring_cache_layout(config);
  for (int64_t i = 0; i < job.steps && !simulator.done(); ++i) {  // run_job's loop, less the backend
    const traces::StepRecord record = simulator.next();
    coverage.add_step(state.step_input(record, i), compressed, ring, record.rejected_rows());
    coverage.add_prefix_hits(prefix_hits.add(record));
    coverage.add_alternative_rows(state.alternative_rows(record, i));
    coverage.add_call_before_step(config, i);
    state.apply(record, i);
  }
  return coverage;
}

void count_instance_geometry(const std::vector<CampaignJob>& jobs, int64_t index,
                             engine::InputSpaceCoverage* coverage) {
  if (index <= 0) return;  // a fresh instance
  const CampaignJob& before = jobs[static_cast<size_t>(index - 1)];
  const CampaignJob& job = jobs[static_cast<size_t>(index)];
  const traces::ScenarioConfig previous = traces::resolve_workload(before.workload, before.seed).config;
  coverage->add_scenario_on_instance(&previous, traces::resolve_workload(job.workload, job.seed).config);
}

engine::InputSpaceCoverage campaign_input_space(const std::vector<CampaignJob>& jobs, uint64_t seed, int64_t batches,
                                                int threads) {
  engine::InputSpaceCoverage total;
  for (int64_t i = 0; i < batches; ++i) total.add_batch(campaign_batch(seed, i).input);
  {
    const traces::LargeBufferReuse reuse;
    for (int64_t k = 0; k < campaign_extreme_batches(batches); ++k)
      total.add_batch(traces::extreme_metadata_batch(k).input);
  }
  for (int64_t i = 0; i < campaign_invalid_batches(batches); ++i)
    total.add_batch(campaign_invalid_batch(seed, i).input);
  std::vector<engine::InputSpaceCoverage> per_job(jobs.size());
  run_pool(static_cast<int64_t>(jobs.size()), threads, false, [&](int64_t k, int, const std::function<bool()>&) {
    per_job[static_cast<size_t>(k)] = job_input_space(jobs[static_cast<size_t>(k)]);
    return false;
  });
  for (const engine::InputSpaceCoverage& c : per_job) total += c;
  for (int64_t k = 0; k < static_cast<int64_t>(jobs.size()); ++k) count_instance_geometry(jobs, k, &total);
  return total;
}

}  // namespace qsa::engine
