#pragma once
// The checking engine: the one place that judges one backend on one input against the contract,
// for the metadata (SPEC 2) and for the step update (SPEC 5). Every entry point calls it (the
// `qsacheck check` campaign, the scenario runner behind `replay`, the property suite, the fuzz
// targets, the benchmarks' verify steps; docs/design.md "The checking engine" lists them), so a
// backend gets the same scrutiny from each and a finding reads the same everywhere.
//
// The checks, in order: the output is poisoned before the run; the status equals the reference's;
// on an error, the error equals the reference's (field, index, rule) and nothing was written
// (SPEC 1.4); on success the invariants of SPEC 7.4 hold, the output equals the reference's (the
// first differing element named with its request, position or head, both values and the count),
// the step update writes only rows the metadata names (SPEC 7.5), and the model oracle (SPEC 7,
// where a scenario supplies one) accepts q_out. Float outputs go through a FloatComparator.

#include <cstdint>
#include <optional>
#include <string>

#include "qsa/backend_interface.hpp"
#include "qsa/engine/check_id.hpp"
#include "qsa/engine/float_comparator.hpp"
#include "qsa/engine/float_statistics.hpp"
#include "qsa/model_oracle.hpp"
#include "qsa/step_types.hpp"
#include "qsa/types.hpp"

namespace qsa::engine {

/// What the engine found wrong: which check, where, both values, and the whole story. Each caller
/// reports it its own way (a campaign row, a RunFailure, an RC_FAIL, a fuzz finding, a bench error).
struct Finding {
  CheckId check;  // which check found it (check_id.hpp)
  std::string field;   // the output that differs ("slot_mapping", "cache.compressed", "q_out"), or for an
                       // error check the error's field as the reference reports it
  int64_t index = -1;  // first differing element (row, slot, byte or error index); -1: none
  std::string expected;
  std::string actual;
  std::string message;  // names the request, position, head or slot where it can, and the count

  /// "check field[index]": what identifies a finding across entry points.
  std::string key() const;
  /// key() and the message.
  std::string to_string() const;
};

// ---- metadata -------------------------------------------------------------------------------

/// What one backend answered for one metadata input.
struct MetadataRun {
  Status status = Status::kOk;
  Error error;
  MetadataOutput output;  // poisoned before the run
};

/// Runs `backend` on `input` with the output poisoned by make_poisoned_metadata_output().
MetadataRun run_metadata(Backend& backend, const MetadataInput& input);
/// The reference's answer (the expectation of every comparison).
MetadataRun reference_metadata(const MetadataInput& input);

struct MetadataChecks {
  bool invariants = true;                 // SPEC 7.4 on a successful run
  const MetadataRun* expected = nullptr;  // the reference's run; nullptr: no differential, and any
                                          // status but kOk is a finding
};

/// Judges a run already made (the benchmarks run their kernels themselves).
std::optional<Finding> judge_metadata(const MetadataInput& input, const MetadataRun& actual,
                                      const MetadataChecks& checks);

/// Runs `backend` and judges it; `actual` (optional) receives the run.
std::optional<Finding> check_metadata(Backend& backend, const MetadataInput& input, const MetadataChecks& checks,
                                      MetadataRun* actual = nullptr);

/// Runs the reference and `backend` on `input` and judges the backend against it, with the invariants.
std::optional<Finding> check_metadata_against_reference(Backend& backend, const MetadataInput& input);

// ---- step update ----------------------------------------------------------------------------

/// What one backend did to the caches and outputs of one step.
struct StepRun {
  Status status = Status::kOk;
  Error error;
  StepCaches caches;  // after the run
  StepOutput output;  // poisoned before the run
};

/// Runs `backend` on `input`, on a copy of `caches`, with the output poisoned.
StepRun run_step_update(Backend& backend, const StepInput& input, const StepCaches& caches);
/// Runs `backend` on `input` in place, on run->caches, with run->output poisoned first; the
/// metadata the kernel gave its step (StepOutput::step_metadata) is read with its declared
/// deviations, once, as run_metadata() reads its metadata.
void run_step_update_in_place(Backend& backend, const StepInput& input, StepRun* run);

/// The slots a step may write, per cache (SPEC 5: the compressed rows of the groups that close in
/// it and the ring rows it commits), ascending, each once, none past the cache.
struct TouchedRows {
  std::vector<int64_t> compressed;
  std::vector<int64_t> ring;
};

/// Those rows, from the reference's metadata of the step (compressed and ring kinds): its
/// slot_mapping names every row a step writes (SPEC 7.4, 7.5).
TouchedRows touched_rows(const CacheLayout& compressed, const MetadataOutput& compressed_metadata,
                         const CacheLayout& ring, const MetadataOutput& ring_metadata);

/// Both whole caches against the expected ones (the compressed rows through `floats`, exact when
/// nullptr; the ring exactly): a "step-differential" finding naming the first differing byte.
std::optional<Finding> compare_whole_caches(const StepCaches& expected, const StepCaches& actual,
                                            const FloatComparator* floats);

struct StepChecks {
  const StepRun* expected = nullptr;                    // the reference's run from the same caches; nullptr: none
  const FloatComparator* floats = nullptr;              // compressed rows and q_out; nullptr: exact
  const MetadataOutput* compressed_metadata = nullptr;  // the reference's, to check SPEC 7.5 writes
  const MetadataOutput* ring_metadata = nullptr;        //   (both or neither)
  const ModelOracle* oracle = nullptr;                  // the Q path against the model oracle
  /// Tolerance mode: receives the row-ulp figures of the compressed rows this step writes (named
  /// by compressed_metadata) and of every q_out row, compared with `expected`.
  StepFloatStatistics* statistics = nullptr;
  /// The rows the step may touch (touched_rows()): when set, the caches are compared with
  /// `expected` only in these rows, and the write check (SPEC 7.5) has nothing to look at, every
  /// one of them being named; the caller compares the whole caches now and then
  /// (compare_whole_caches). nullptr: both whole caches, byte by byte.
  const TouchedRows* touched = nullptr;
};

/// Judges a run made from `before`: status (kNotImplemented is the caller's to handle), the
/// metadata a kernel that builds its own gave its step (against the reference's), the step status, both caches and q_out against the expectation, the writes, the Q path.
std::optional<Finding> judge_step_update(const StepInput& input, const StepCaches& before, const StepRun& actual,
                                         const StepChecks& checks);

// ---- where a cache byte lies ----------------------------------------------------------------

/// A byte offset of a cache buffer decoded by its layout (the one place that does it).
struct CachePlace {
  int64_t block = 0;
  int64_t row = 0;     // may be >= rows in the padding between blocks
  int64_t column = 0;  // element within the row; may be >= width in the padding between rows
  int64_t slot = 0;    // block · rows + row
  int64_t byte = 0;    // byte within the element
};
CachePlace cache_place(const CacheLayout& layout, int64_t byte_offset);

}  // namespace qsa::engine
