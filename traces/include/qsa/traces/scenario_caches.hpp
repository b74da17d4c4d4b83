#pragma once
// The caches a scenario's configuration describes (its layouts, padding included) and the geometry
// every step of it shares: what any backend is handed, and what a kernel's declared constraints
// judge before a step is generated (Backend::excludes).

#include <cstdint>

#include "qsa/declared_limits.hpp"
#include "qsa/step_types.hpp"
#include "qsa/traces/scenario.hpp"

namespace qsa::traces {

/// Fresh caches for a configuration, every byte poisoned (nothing a correct run reads is unwritten).
StepCaches make_poisoned_caches(const ScenarioConfig& config);
/// Fresh caches, every byte `value`; with 0 nothing is committed (CacheBytes): the runner starts
/// from these and poisons each block when a step first names it.
StepCaches make_caches(const ScenarioConfig& config, uint8_t value);
/// The layouts of those caches (dense), without allocating them.
CacheLayout ring_cache_layout(const ScenarioConfig& config);
CacheLayout compressed_cache_layout(const ScenarioConfig& config);
/// What every step of a scenario of this configuration shares, for a kernel's declared
/// constraints to judge before any step is generated (Backend::excludes).
StepGeometry step_geometry(const ScenarioConfig& config);

}  // namespace qsa::traces
