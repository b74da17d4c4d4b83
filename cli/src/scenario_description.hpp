#pragma once
// One line that names a scenario's geometry, for the replay and simulate reports.

#include <string>

#include "qsa/traces/scenario.hpp"

namespace qsa::cli {

/// "C=4 B=16 drafts=3 R=8 D=128 rd=64 HQ=4 MRoPE bf16"
std::string describe(const traces::ScenarioConfig& config);

}  // namespace qsa::cli
