/* The C++ reference in process, for Python's ctypes (python/qsacheck/reference.py): one JSON text
 * in, one JSON text out, the same bytes `qsacheck eval metadata` / `eval step` print (the documented
 * schemas of docs/json-schema.md), so there is one reference and one codec, never a second one.
 * Not the plugin ABI (qsacheck/plugin.h): no stability promise beyond the Python package of the
 * same build (docs/decisions.md, "In-process reference calls"). */
#ifndef QSACHECK_CAPI_H
#define QSACHECK_CAPI_H

#include <stdint.h>

#if defined(__GNUC__)
#define QSACHECK_CAPI __attribute__((visibility("default")))
#else
#define QSACHECK_CAPI
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Every call returns 0 with *out the result, or 2 with *out the error line
 * ({"status": "error", "field", "index", "rule", "message"}, exactly as qsacheck prints it);
 * *out is NUL-terminated and freed with qsa_capi_free. */

/* SPEC 2 on the reference: `qsacheck eval metadata`'s output for this input. */
QSACHECK_CAPI int qsa_capi_eval_metadata(const char* json, char** out);
/* SPEC 5 on the reference: `qsacheck eval step [--pooled]`'s output for this input. */
QSACHECK_CAPI int qsa_capi_eval_step(const char* json, int with_pooled, char** out);
/* SPEC 6's comparison of one float output laid out as `rows` rows of `width` elements
 * (element_bytes 2: bf16 patterns, 1: fp8 e4m3fn patterns), tolerance "exact" or "row-ulp:N":
 * {"equal": bool, "first_element", "count", "unit", "distance"} with the first unaccepted element
 * (-1 when equal). */
QSACHECK_CAPI int qsa_capi_compare_rows(const uint8_t* expected, const uint8_t* actual, int64_t rows, int64_t width,
                          int element_bytes, const char* tolerance, char** out);
/* SPEC 2 on one of `qsacheck mutants`' planted-bug backends of the CPU set (planted/, docs/planted-bugs.md;
 * `name` as "bug:slot-int32-overflow"): the output of `qsacheck eval metadata --backend NAME`, for
 * showing that a test finds a bug. */
QSACHECK_CAPI int qsa_capi_eval_metadata_planted(const char* name, const char* json, char** out);

/* The metadata inputs of SPEC 8's examples: a JSON array of `eval metadata` inputs. */
QSACHECK_CAPI int qsa_capi_spec_examples(char** out);

/* The project's one batch generator (traces/edge_batch_generator.hpp) through a choice source the
 * caller supplies (traces::Choice's three decisions, as callbacks): Python passes Hypothesis's
 * draws, so Hypothesis shrinks the generator's decisions. kind: "compressed", "ring",
 * "passthrough" or "" (any); out: {"shape": NAME, "input": an `eval metadata` input}. */
typedef int64_t (*qsa_capi_range_fn)(void* context, int64_t lo, int64_t hi);
typedef int (*qsa_capi_chance_fn)(void* context, uint64_t numerator, uint64_t denominator);
typedef uint64_t (*qsa_capi_seed_fn)(void* context);
QSACHECK_CAPI int qsa_capi_draw_batch(qsa_capi_range_fn range, qsa_capi_chance_fn chance, qsa_capi_seed_fn seed,
                                      void* context, const char* kind, int64_t max_tokens, char** out);
/* As qsa_capi_draw_batch, then one rule of SPEC 1.4 broken through the same choices
 * (traces/invalid_batch.hpp, the campaign's and RapidCheck's): an input the reference rejects. */
QSACHECK_CAPI int qsa_capi_draw_invalid_batch(qsa_capi_range_fn range, qsa_capi_chance_fn chance, qsa_capi_seed_fn seed,
                                              void* context, const char* kind, int64_t max_tokens, char** out);
/* The same generator on the project's Rng (the campaign's source): batch `seed`. */
QSACHECK_CAPI int qsa_capi_generate_batch(uint64_t seed, const char* kind, int64_t max_tokens, char** out);

/* The first `steps` step updates of a scenario file (a recorded trace, a reproducer) as the reference
 * runs it: a JSON array of `eval step` inputs, each the step's input and its caches before the step. */
QSACHECK_CAPI int qsa_capi_scenario_steps(const char* path, int64_t steps, char** out);

/* The input-space inventory's counters (traces/input_space_coverage.hpp, docs/input-space.md) over
 * a JSON array of `eval metadata` inputs: [{"id", "scope", "count", "missed_edges": [...]}] for
 * every row of scope "batch" or "both", in table order. */
QSACHECK_CAPI int qsa_capi_batch_coverage(const char* json_array, char** out);

QSACHECK_CAPI void qsa_capi_free(char* text);

#ifdef __cplusplus
}
#endif

#endif
