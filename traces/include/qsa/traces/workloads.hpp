#pragma once
// Named workload models for the step simulator (simulator.hpp): a ScenarioConfig template and the
// knobs of the simulated vLLM v1 scheduler (request lengths, arrivals, drafts and acceptance,
// preemption, prefix sharing, negative common slots, CUDA-graph padding, batch limits, cache
// sizes). docs/workloads.md describes each one and how the Azure tables were fitted.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "qsa/traces/cuda_graph_padding.hpp"
#include "qsa/traces/length_table.hpp"
#include "qsa/traces/scenario.hpp"

namespace qsa::traces {

/// The shape of one scenario's caches; R follows from SPEC 3 (qsa::ring_capacity with the
/// template's ring rule) and must exist for the pair.
struct Geometry {
  int64_t compress_ratio = 4;          // C
  int64_t num_speculative_tokens = 3;  // drafts
  int64_t block_size = 16;             // B
};

struct RequestSchedule;  // request_replay.hpp

struct Workload {
  std::string name;
  std::string description;  // one line, for --help

  /// Template: head dims, dtype, MRoPE, eps, theta, max_num_batched_tokens, max_num_seqs, ring
  /// rule. C, drafts, B, R, max_position and the cache sizes are filled per scenario
  /// (resolve_workload), from `geometries` and the length tables.
  ScenarioConfig config;
  std::vector<Geometry> geometries;  // one drawn per scenario; empty: the template's C, drafts and B

  // Requests: lengths are sampled from the tables, divided by the scale (floor at 1).
  LengthTable prompt_tokens;
  LengthTable output_tokens;  // generated tokens; a request ends when all are produced
  int64_t prompt_length_scale = 1;
  int64_t output_length_scale = 1;
  int64_t arrivals_per_step_milli = 500;  // mean new requests per step, in thousandths
  int64_t trace_requests_per_ks = 0;      // > 0: arrivals follow a trace's rate instead (see arrival_rate_milli)
  int64_t step_ms = 25;                   // wall time of one step, to turn a trace's rate into arrivals per step
  int64_t initial_requests = 4;           // waiting before the first step
  int64_t max_waiting = 64;               // arrivals while this many wait are dropped (overload)
  int64_t max_requests = 0;               // > 0: no arrivals after this many; the simulator is then done when all end

  // Speculative decoding: a decode proposes the configured drafts, or fewer (uniform in [0, drafts-1])
  // with the given chance; verification accepts each draft, in order, with the given chance until
  // the first rejection.
  int64_t fewer_drafts_per_mille = 100;
  int64_t draft_accept_per_mille = 700;

  int64_t preempt_per_mille = 10;            // chance per step of preempting one running request
  int64_t compressed_pool_per_mille = 1000;  // compressed pool size as a share of max_num_seqs full-length requests
  int64_t family_per_mille = 200;            // chance that a new request shares a prompt family
  int64_t num_families = 3;
  int64_t negative_slot_per_mille = 50;  // chance that a chunk with generated rows gets negative common slots
  PaddingPolicy padding = PaddingPolicy::kVllm;

  // The input classes no other model reaches (the `edges` workload).
  bool draw_mrope_split = false;          // with MRoPE: sections drawn per scenario, not 11:11:10 (mrope_split)
  int64_t far_block_per_mille = 0;        // chance that a new compressed block is an id near INT32_MAX, past the cache
  int64_t zero_length_first_per_mille = 0;  // chance per step that the first running request gets a zero-length chunk

  // Step shapes vLLM's scheduler does not make but SPEC 1.1 and 5 allow (the `step-edges` workload):
  // chances per step, from a stream of their own. Not for workloads with prefix sharing: a group
  // skipped for a missing block would leave a shared block without its row.
  int64_t zero_length_inside_per_mille = 0;  // the second running request waits; its chunk sits after one with rows
  int64_t all_padding_per_mille = 0;         // every running request waits, nobody is admitted: M = 0 < N
  int64_t prefill_first_per_mille = 0;       // the first prefill chunk moves before the decodes
  int64_t missing_compressed_per_mille = 0;  // one chunk's block of its last closing group is -1, or its column dropped
  int64_t missing_ring_per_mille = 0;        // a finishing request's ring block is -1 or an id past the ring
  int64_t fixed_max_position = 0;            // > 0: the RoPE table's rows, instead of the longest request + 128
  /// > 0: the compressed cache's blocks (the prefix cache's pool), instead of compressed_pool_per_mille
  /// of max_num_seqs longest requests; at least one longest request plus 2 (else InputError).
  int64_t fixed_compressed_blocks = 0;

  /// > 0: a request (re)starts with its first min(this, positions to prefill - 1) positions already in
  /// the caches, its first chunk `prefilled` (scenario.hpp), taking no prefix hit
  /// (docs/workloads.md "Pre-filled context"); `--prefilled-context`.
  int64_t prefilled_context = 0;

  /// Non-empty: each scenario is one of these, drawn from the seed (the `adversarial` mix).
  std::vector<Workload> mix;

  /// Non-null: the requests of a log arrive as logged (request_replay.hpp) instead of the tables'
  /// draws and the arrival rate; the tables then only size the caches.
  std::shared_ptr<const RequestSchedule> schedule;
  /// Member (seed mod mix size) instead of a draw: n consecutive seeds take every member once
  /// (`layouts`, whose members are the kernel's paths).
  bool mix_in_turn = false;
};

/// Mean arrivals per step in thousandths: `arrivals_per_step_milli`, or for a trace-fitted
/// workload rate × step_ms × output_length_scale (shorter outputs finish in fewer steps, so the
/// arrival rate per step grows by the same factor to keep the trace's concurrency, Little's law).
int64_t arrival_rate_milli(const Workload& workload);

/// The concrete workload of one scenario: the mix member and the geometry drawn from the seed, and
/// a complete config (C, drafts, B, R, max_position = longest request + 128 rounded up to 64,
/// cache sizes large enough for the pool, seed, workload name). Its `mix` is empty and
/// `geometries` holds the one drawn. Throws InputError if the geometry has no ring capacity.
Workload resolve_workload(const Workload& workload, uint64_t seed);

/// default, tiny-blocks, ratios, many-drafts, ring-minimum, production-blocks, preemption-storm,
/// prefix-sharing, mrope-fp8, adversarial, production, layouts, edges, step-edges, azure-code, azure-conv.
std::vector<std::string> workload_names();

/// Throws InputError {field "workload", rule "unknown-workload"} naming the choices.
Workload workload_by_name(const std::string& name);

/// "name  description" lines of every workload, for --help.
std::string workload_help();

/// A workload whose lengths are the empirical tables of a user's CSV: a header naming columns
/// `prompt_tokens,output_tokens` or Azure's `TIMESTAMP,ContextTokens,GeneratedTokens` (in any
/// order, other columns ignored), then one request per line. With timestamps the arrival rate is
/// fitted too. Everything else is the `default` workload's. Errors throw InputError with field =
/// the column (or "input"), index = the 1-based line, rule one of: unreadable, missing-column,
/// wrong-field-count, not-an-integer, out-of-range, malformed-timestamp, empty, too-large (the
/// input limit), not-a-file. A UTF-8 byte-order mark before the header is skipped.
Workload workload_from_requests_csv(const std::string& path);
/// The same from the CSV's text (`path` only names it in errors); the fuzz target's entry point.
Workload workload_from_requests_csv_text(const std::string& text, const std::string& path);

}  // namespace qsa::traces
