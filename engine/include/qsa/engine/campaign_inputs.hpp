#pragma once
// The inputs a `qsacheck check` campaign generates, counted against the input-space inventory
// without running any backend (input_space_coverage.hpp): the same counts the campaign's report
// holds in `input_space` for one backend, at the cost of generating the inputs only.

#include <cstdint>
#include <vector>

#include "qsa/engine/campaign_jobs.hpp"
#include "qsa/engine/input_space_coverage.hpp"

namespace qsa::engine {

/// The generated metadata batches (`batches` of them, then the extreme ones), the invalid batches,
/// and every step input of `jobs` (each job's steps as run_job() draws them), on `threads` threads.
engine::InputSpaceCoverage campaign_input_space(const std::vector<CampaignJob>& jobs, uint64_t seed, int64_t batches,
                                                int threads);

/// One job's step inputs (the scenario state stepped without a backend).
engine::InputSpaceCoverage job_input_space(const CampaignJob& job);

/// Job `index` of `jobs` on the backend instance that ran job index - 1 before it (a campaign keeps
/// one instance per job thread and runs its jobs in turn): counted in `coverage` when the two
/// scenarios' geometries differ. Campaign order, as one thread runs the jobs, so the report does
/// not depend on --jobs or --shard (each shard counts its own jobs against their predecessors).
void count_instance_geometry(const std::vector<CampaignJob>& jobs, int64_t index, engine::InputSpaceCoverage* coverage);

}  // namespace qsa::engine
