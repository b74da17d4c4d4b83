#pragma once
// The engine's campaign and report types under their short names in the CLI's commands, which
// print, merge and write them.

#include "qsa/engine/campaign.hpp"
#include "qsa/engine/campaign_jobs.hpp"
#include "qsa/engine/check_report.hpp"
#include "qsa/engine/exit_codes.hpp"
#include "qsa/engine/merge_reports.hpp"

namespace qsa::cli {

using engine::CampaignIdentity;
using engine::CampaignJob;
using engine::CheckFinding;
using engine::CheckReport;
using engine::CheckRow;
using engine::DeclaredLimits;
using engine::JobRecord;
using engine::JobResult;
using engine::RunFacts;
using engine::ShardReport;
using engine::ShardSpec;

}  // namespace qsa::cli
