#include "qsa/engine/merge_reports.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "qsa/traces/json_reader.hpp"

namespace qsa::engine {
namespace {

std::vector<std::string> sorted_union(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::set<std::string> all(a.begin(), a.end());
  all.insert(b.begin(), b.end());
  return {all.begin(), all.end()};
}

}  // namespace
namespace {

[[noreturn]] void refuse(const std::string& field, size_t index, const std::string& rule, const std::string& message) {
  throw InputError(Error{field, static_cast<int64_t>(index), rule, message});
}

// Every report must name the same campaign as the first one.
void check_one_campaign(const std::vector<ShardReport>& shards) {
  const CampaignIdentity& first = shards[0].report.campaign;
  for (size_t i = 0; i < shards.size(); ++i) {
    const CampaignIdentity& id = shards[i].report.campaign;
    const std::string& file = shards[i].file;
    if (!id.keep_going)
      refuse("campaign.keep_going", i, "not-keep-going",
             file + " stopped at its first finding; merge the reports of --shard K/N or --keep-going runs");
    auto same = [&](const std::string& field, const std::string& mine, const std::string& theirs,
                    const std::string& rule) {
      if (mine != theirs)
        refuse(field, i, rule,
               file + " has " + field + " \"" + mine + "\" but " + shards[0].file + " has \"" + theirs + "\"");
    };
    same("campaign.qsacheck_version", id.tool_version, first.tool_version, "different-version");
    same("campaign.commit", id.commit, first.commit, "different-version");
    same("campaign.spec_version", id.spec_version, first.spec_version, "different-version");
    same("campaign.settings_hash", id.settings_hash, first.settings_hash, "different-settings");
    same("campaign.shard.count", std::to_string(id.shard_count), std::to_string(first.shard_count),
         "different-shard-count");
  }
  std::map<int64_t, size_t> by_index;
  for (size_t i = 0; i < shards.size(); ++i) {
    const auto [at, fresh] = by_index.emplace(shards[i].report.campaign.shard_index, i);
    if (!fresh)
      refuse("campaign.shard.index", i, "duplicate-shard",
             shards[i].file + " (file " + std::to_string(i) + ") is shard " + std::to_string(at->first) + ", as is " +
                 shards[at->second].file + " (file " + std::to_string(at->second) + "); give each shard once");
  }
  std::string missing;
  int64_t first_missing = 0;
  for (int64_t k = first.shard_count; k >= 1; --k)
    if (by_index.count(k) == 0) {
      missing = std::to_string(k) + (missing.empty() ? "" : ", ") + missing;
      first_missing = k;
    }
  if (!missing.empty())
    throw InputError(Error{"campaign.shard.index", first_missing, "missing-shard",
                                   "shard(s) " + missing + " of " + std::to_string(first.shard_count) +
                                       " missing (index: the first missing K); merge all " +
                                       std::to_string(first.shard_count) + " reports of the campaign"});
}

void add_rows(CheckReport& merged, const ShardReport& shard, size_t index) {
  const std::vector<CheckRow>& rows = shard.report.rows;
  if (rows.size() != merged.rows.size())
    refuse("checks", index, "different-checks",
           shard.file + " has " + std::to_string(rows.size()) + " check rows, the first report " +
               std::to_string(merged.rows.size()));
  for (size_t i = 0; i < rows.size(); ++i) {
    CheckRow& into = merged.rows[i];
    const CheckRow& row = rows[i];
    if (row.check != into.check || row.backend != into.backend)
      refuse("checks", index, "different-checks",
             shard.file + " row " + std::to_string(i) + " is \"" + row.check + "\" on " + row.backend);
    into.cases += row.cases;
    into.failures += row.failures;
    into.seconds += row.seconds;
    if (row.first_failure_order >= 0 &&
        (into.first_failure_order < 0 || row.first_failure_order < into.first_failure_order)) {
      into.first_failure = row.first_failure;
      into.first_failure_order = row.first_failure_order;
    }
  }
}

// Jobs in the unsharded order (backend, then job index); each job of the campaign exactly once
// unless a shard was stopped.
void join_jobs(CheckReport& merged, const std::vector<ShardReport>& shards) {
  auto backend_rank = [&](const std::string& name) {
    return std::find(merged.backends.begin(), merged.backends.end(), name) - merged.backends.begin();
  };
  std::map<std::pair<int64_t, int64_t>, size_t> seen;  // (backend, job) -> shard
  for (size_t i = 0; i < shards.size(); ++i)
    for (const JobRecord& job : shards[i].report.jobs) {
      const auto key = std::make_pair(static_cast<int64_t>(backend_rank(job.backend)), job.index);
      if (!seen.emplace(key, i).second)
        refuse("jobs", i, "duplicate-job",
               "job " + std::to_string(job.index) + " on " + job.backend + " is in " + shards[seen[key]].file +
                   " and in " + shards[i].file);
      merged.jobs.push_back(job);
    }
  std::sort(merged.jobs.begin(), merged.jobs.end(), [&](const JobRecord& x, const JobRecord& y) {
    return std::make_pair(backend_rank(x.backend), x.index) < std::make_pair(backend_rank(y.backend), y.index);
  });
  if (!merged.stopped_by.empty()) return;  // a stopped shard left jobs out; the report says so (exit 3)
  for (size_t b = 0; b < merged.backends.size(); ++b)
    for (int64_t j = 0; j < merged.campaign.jobs_total; ++j)
      if (seen.count({static_cast<int64_t>(b), j}) == 0)
        refuse("jobs", static_cast<size_t>(j % merged.campaign.shard_count), "missing-job",
               "job " + std::to_string(j) + " on " + merged.backends[b] + " is in no report (shard " +
                   std::to_string(j % merged.campaign.shard_count + 1) + " should hold it)");
}

// Per backend: counts summed; the worst element is the farthest, the earliest job on a tie, as in
// one sequential run.
void join_float_statistics(CheckReport& merged, const std::vector<ShardReport>& shards) {
  struct Part {
    int64_t worst_job;
    const engine::FloatStatistics* stats;
  };
  std::map<std::string, std::pair<std::vector<Part>, std::vector<Part>>> parts;
  std::vector<std::string> order;
  for (const ShardReport& shard : shards) {
    const CheckReport& r = shard.report;
    for (size_t b = 0; b < r.float_statistics.size(); ++b) {
      const std::string& backend = r.float_statistics[b].first;
      if (parts.count(backend) == 0) order.push_back(backend);
      const auto worst = b < r.float_worst_jobs.size() ? r.float_worst_jobs[b] : std::make_pair(-1L, -1L);
      parts[backend].first.push_back({worst.first, &r.float_statistics[b].second.compressed});
      parts[backend].second.push_back({worst.second, &r.float_statistics[b].second.q_out});
    }
  }
  auto combine = [](std::vector<Part> list, engine::FloatStatistics* into) {
    std::sort(list.begin(), list.end(), [](const Part& x, const Part& y) { return x.worst_job < y.worst_job; });
    int64_t worst_job = -1;
    for (const Part& p : list)
      if (engine::absorb(*into, *p.stats)) worst_job = p.worst_job;
    return worst_job;
  };
  for (const std::string& backend : order) {
    merged.float_statistics.emplace_back(backend, engine::StepFloatStatistics(merged.float_tolerance.ulps));
    auto& stats = merged.float_statistics.back().second;
    const int64_t compressed = combine(parts[backend].first, &stats.compressed);
    const int64_t q_out = combine(parts[backend].second, &stats.q_out);
    merged.float_worst_jobs.emplace_back(compressed, q_out);
  }
}

}  // namespace

CheckReport merge_reports(const std::vector<ShardReport>& given) {
  if (given.empty()) refuse("files", 0, "missing", "no report to merge");
  check_one_campaign(given);
  std::vector<ShardReport> shards = given;
  std::stable_sort(shards.begin(), shards.end(), [](const ShardReport& x, const ShardReport& y) {
    return x.report.campaign.shard_index < y.report.campaign.shard_index;
  });
  const CheckReport& first = shards[0].report;
  CheckReport merged;
  merged.seed = first.seed;
  merged.backends = first.backends;
  merged.unavailable = first.unavailable;
  merged.float_tolerance = first.float_tolerance;
  merged.campaign = first.campaign;
  merged.request_log = first.request_log;  // one campaign: one log (its content is in the settings hash)
  merged.campaign.shard_index = 1;
  merged.campaign.shard_count = 1;
  merged.rows = first.rows;
  for (CheckRow& row : merged.rows) row = CheckRow{row.check, row.backend, 0, 0, 0, "", -1};
  merged.run.merged_from = nlohmann::json::array();
  std::set<std::string> not_run;
  for (size_t i = 0; i < shards.size(); ++i) {
    const CheckReport& r = shards[i].report;
    add_rows(merged, shards[i], i);
    merged.coverage += r.coverage;
    merged.input_space += r.input_space;  // counts add, extremes and edges combine
    merged.sharing += r.sharing;
    merged.evictions += r.evictions;
    merged.log_implied_reusable += r.log_implied_reusable;
    merged.log_implied_reused += r.log_implied_reused;
    for (const auto& [path, steps] : r.kernel_path_steps) merged.kernel_path_steps[path] += steps;
    for (const auto& [grid, steps] : r.grid_steps) merged.grid_steps[grid] += steps;
    merged.all_kernel_paths = sorted_union(merged.all_kernel_paths, r.all_kernel_paths);
    merged.all_grids = sorted_union(merged.all_grids, r.all_grids);
    not_run.insert(r.not_run.begin(), r.not_run.end());
    for (const DeclaredLimits& d : r.declared_limits) add_declared_limits(d, &merged.declared_limits);
    if (merged.stopped_by.empty()) merged.stopped_by = r.stopped_by;
    merged.findings.insert(merged.findings.end(), r.findings.begin(), r.findings.end());
    merged.findings_total += r.findings_total;
    merged.run.merged_from.push_back({{"file", shards[i].file},
                                      {"shard", r.campaign.shard_index},
                                      {"run", r.run.merged_from},
                                      {"unwritten_outputs", r.unwritten}});
  }
  merged.not_run.assign(not_run.begin(), not_run.end());
  // Each shard listed its first max_findings in campaign order; the campaign's first ones are among them.
  std::sort(merged.findings.begin(), merged.findings.end(),
            [](const CheckFinding& x, const CheckFinding& y) { return x.order < y.order; });
  if (merged.findings.size() > static_cast<size_t>(merged.campaign.max_findings))
    merged.findings.resize(static_cast<size_t>(merged.campaign.max_findings));
  for (const CheckFinding& f : merged.findings)
    if (merged.reproducer.empty() && !f.reproducer.empty()) {
      merged.reproducer = f.reproducer;
      merged.replay_command = f.replay_command;
    }
  join_jobs(merged, shards);
  join_float_statistics(merged, shards);
  return merged;
}

}  // namespace qsa::engine
