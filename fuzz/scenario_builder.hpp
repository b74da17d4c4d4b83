#pragma once
// fuzz_scenario's input: bytes -> a short scenario, read as commands for a small scheduler of its
// own (not traces::Simulator, whose workload models would leave most of the input unused):
// a configuration whose geometry is drawn part by part (C, drafts, B and the ring rule; D; rd; HQ;
// MRoPE and its sections; the store dtype) from the small geometry, the real model's (SPEC 9) and
// values past each rule's edge, each part kept only when traces::validate_config (the rules
// `check --head-dim ...` applies) accepts it, else the small geometry's (D = 32, C in {2, 4, 8}, B a
// small multiple of R, 0-4 drafts, R from qsa::ring_capacity under either rule); a rejection naming
// another part's field is a finding. Small caches, and a row budget per step that shrinks as HQ * D
// grows, keep an input's cost about the same at every geometry. Then steps of
// arrivals, chunk sizes biased toward group, ring and block edges, draft counts and acceptance,
// prefix hits on a family peer's full prompt blocks, zero-length requests, negative common slots
// on generated positions, CUDA-graph padding, T, finishes and preemptions.
//
// The scenario is valid by construction (traces/FORMAT.md and SPEC 7): a chunk starts at its
// request's committed length, or for a fresh family member at a multiple of B below its prompt
// length on blocks a live peer has filled with committed prompt positions; at most `drafts` rows
// of a decode are rejected and the first is always accepted; the blocks of a request cover what it
// writes and are never written while shared (reference counts); every live request holds its own
// ring block; ids are below the cache sizes; start + length + 64 <= max_position. A correct
// backend therefore passes every check on it, and ScenarioRunner reporting `invalid_scenario` is a
// bug in this builder.

#include "fuzz_support.hpp"
#include "qsa/traces/scenario.hpp"

namespace qsa::fuzz {

inline constexpr int64_t kMaxScenarioSteps = 20;

traces::Scenario build_scenario(Decoder& in);

}  // namespace qsa::fuzz
