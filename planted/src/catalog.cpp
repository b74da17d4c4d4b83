// The catalog of planted bugs: names, one-line descriptions and the scenario feature each needs.
// docs/planted-bugs.md lists the same bugs with the check expected to catch each.

#include "qsa/planted/catalog.hpp"

#include <algorithm>

namespace qsa::planted {

const std::vector<PlantedInfo>& catalog() {
  static const std::vector<PlantedInfo> catalog = {
      {Bug::kRingIndexOffByOne, "bug:ring-index-off-by-one",
       "ring slot is b*R + (p + 1) % R (off by one), in the metadata and in the step's ring reads", ""},
      {Bug::kRingSuffixFilterDropped, "bug:ring-suffix-filter-dropped",
       "ring slot_mapping gives every row of the chunk a slot, not only the last min(q, R)", "long-chunk"},
      {Bug::kRingOneRowShort, "bug:ring-one-row-short",
       "the ring is used as R - 1 rows (slot b*R + p % (R - 1), last R - 1 rows kept): one row short of SPEC 3", ""},
      {Bug::kVisibleBlocksOffByOne, "bug:visible-blocks-off-by-one",
       "visible_blocks = (p + 2) / Cb: a row sees the group it is still inside", ""},
      {Bug::kKWorkWithoutMinimum, "bug:k-work-without-minimum",
       "k-work items n_j = e/C - s/C without max(1, ...): a chunk closing no group gets no item to commit its ring "
       "rows",
       "short-chunk"},
      {Bug::kPaddingRowsNotInert, "bug:padding-rows-not-inert",
       "the row loop runs to N instead of M: padding rows get the last request's token_to_req and a position",
       "padding"},
      {Bug::kCompressedSlotIgnoresCommon, "bug:compressed-slot-ignores-common-slot",
       "compressed slot_mapping ignores a negative common slot, so that group is still written",
       "negative-common-slot"},
      {Bug::kTokenToReqLowerBound, "bug:token-to-req-zero-length-request",
       "token_to_req by lower_bound on qsl: a row starting a request after a zero-length one maps to the empty request",
       "zero-length-request"},
      {Bug::kBatchSplitExactPadding, "bug:batch-split-requires-exact-padding",
       "batch split rule 3 only when N == NR * q0 (upstream's old assertion): token-only padding splits as rule 4",
       "token-only-padding"},
      {Bug::kErrorIndexOneBased, "bug:error-index-one-based",
       "validation reports the offending element 1-based (index + 1): right outputs, wrong error index",
       "invalid-input"},
      {Bug::kClearsOutputBeforeValidating, "bug:clears-output-before-validating",
       "the batch split is zeroed before validation, so an input the contract rejects still gets outputs written",
       "invalid-input"},
      {Bug::kRingReadAfterCommit, "bug:ring-read-after-commit",
       "the ring commit (phase B) runs before the group reads (phase A): a group pools this step's overwritten rows",
       "unaligned-long-chunk"},
      {Bug::kPoolWrongRingRow, "bug:pool-wrong-ring-row",
       "group pooling reads an earlier member m < s from ring row (m + 1) % R", "drafts"},
      {Bug::kGroupPositionIgnoresRingTail, "bug:group-position-ignores-ring-tail",
       "the compressed row is rotated at (gC, gC, gC) even when the ring caches (t, h, w)", "mrope"},
      {Bug::kPositionTailNotWritten, "bug:position-tail-not-written",
       "the ring commit copies the key bits but not the (t, h, w) tail", "mrope"},
      {Bug::kQOutSkipsPadding, "bug:q-out-skips-padding",
       "the Q path launches over M rows, leaving q_out of padding rows unwritten", "padding"},
      {Bug::kWrongMropeAxis, "bug:wrong-mrope-axis",
       "MRoPE axis selection swaps h and w (pair i % 3 == 1 reads w, i % 3 == 2 reads h)", "mrope"},
      {Bug::kFp8NoSaturation, "bug:fp8-no-saturation",
       "fp8 e4m3 store by a plain RNE cast: values beyond the range become NaN (0x7F / 0xFF) instead of +-448", "fp8"},
      {Bug::kPoolAccumulatesInBf16, "bug:pool-accumulates-in-bf16",
       "the pooling accumulator is a bf16 register: the sum is rounded to bf16 after every add", ""},
      {Bug::kNormWeightWithoutOne, "bug:norm-weight-without-one",
       "RMSNorm multiplies by w instead of (1 + w) (the Llama norm, not Gemma's)", ""},
      {Bug::kRopeInterleavedPairs, "bug:rope-interleaved-pairs",
       "RoPE rotates adjacent pairs (2i, 2i + 1) as GPT-J does, not NeoX halves (i, hp + i)", ""},
      {Bug::kRopeSignSlip, "bug:rope-sign-slip", "RoPE computes out_i = a*c + b*s: the sign of the sine term slipped",
       ""},
      {Bug::kSkipsFirstClosedGroup, "bug:skips-first-closed-group",
       "the group loop starts at s/C + 1: the first group a chunk closes is never written", ""},
      // Shows only where a sum of squares rounds differently and the bf16 result crosses a rounding
      // boundary: about one element in 2^16, so it needs a simulated scenario's many rows.
      {Bug::kSumOfSquaresSequential, "bug:sum-of-squares-sequential",
       "RMSNorm sums the squares left to right instead of the pairwise tree", "many-rows"},
      {Bug::kBf16RoundHalfAway, "bug:bf16-round-half-away",
       "every bf16 rounding (pool, norm, RoPE) breaks ties away from zero instead of to even", "rounding-ties"},
      {Bug::kBf16Truncation, "bug:bf16-truncation",
       "every bf16 rounding (pool, norm, RoPE) truncates the binary32 value (drops its low 16 bits)", ""},
      {Bug::kFlushSubnormals, "bug:flush-subnormals",
       "subnormal inputs and results are flushed to zero in pooling, RMSNorm and RoPE (DAZ + FTZ, -ftz=true)",
       "subnormals"},
      {Bug::kE4m3Truncation, "bug:e4m3-truncation",
       "the fp8 e4m3 store truncates towards zero instead of rounding to nearest even (saturation kept)", "fp8"},
      // The classes of docs/input-space.md: the generated batches (edge_batch_generator.hpp) and the `edges`
      // workload's scenarios reach them; `needs` names the edges member that shows each.
      {Bug::kSlotInt32Overflow, "bug:slot-int32-overflow",
       "the compressed slot b*S + g % S is computed in int32: block ids near INT32_MAX with large S wrap",
       "edges-far-blocks"},
      {Bug::kRequestsCappedAt1024, "bug:requests-capped-at-1024",
       "token_to_req searches a 1024-entry shared copy of qsl: rows of request 1024 and later map to request 1023",
       "edges-many-requests"},
      {Bug::kCompressRatioShift, "bug:compress-ratio-shift",
       "C assumed a power of two: group g = p >> log2(C), closing rows (p + 1) & (C - 1) == 0, visible blocks by shift",
       "edges-ratio"},
      {Bug::kZeroLengthFirstSkipped, "bug:zero-length-first-skipped",
       "the batch split reads q_0 from the first non-empty request, skipping a zero-length first request",
       "edges-zero-first"},
      {Bug::kMropeProportionalSections, "bug:mrope-proportional-sections",
       "MRoPE sections assumed in the model's 11:11:10 proportion of rd / 2: the given sections are ignored",
       "edges-mrope-split"},
      // The step classes of docs/input-space.md: `needs` names the step-edges member that shows each.
      {Bug::kCacheRowsPacked, "bug:cache-rows-packed",
       "cache rows addressed width elements apart: a padded row stride is ignored", "step-edges-column-major"},
      {Bug::kCacheBlocksPacked, "bug:cache-blocks-packed",
       "cache blocks addressed rows * row stride apart: a padded block stride is ignored", "step-edges-column-major"},
      {Bug::kBlockTableRowMajor, "bug:block-table-row-major",
       "block tables read as dense row-major (entry j * W + col): column-major or sliced tables misread",
       "step-edges-column-major"},
      {Bug::kMissingBlockAsBlockZero, "bug:missing-block-as-block-zero",
       "a negative block-table entry (no block) is read as block 0, in the metadata and the step's ring reads",
       "step-edges-column-slice"},
      {Bug::kSplitAssumesDecodesFirst, "bug:split-assumes-decodes-first",
       "batch split rule 2 tested as 'no request with 0 < q <= T', the same only when decodes come first",
       "step-edges-column-major"},
      {Bug::kStopsAtZeroLengthRequest, "bug:stops-at-zero-length-request",
       "the step update's request loops stop at the first zero-length request (taken for tail padding)",
       "step-edges-column-major"},
      {Bug::kAllPaddingStepSkipped, "bug:all-padding-step-skipped",
       "a step whose rows are all padding (M = 0) returns at once, leaving q_out unwritten", "step-edges-column-slice"},
      {Bug::kEpsClampedToOne, "bug:eps-clamped-to-one", "eps is clamped to at most 1 before the norm",
       "step-edges-weights"},
      {Bug::kWeightsNanToNum, "bug:weights-nan-to-num",
       "norm weights sanitized (nan_to_num): NaN becomes 0 and infinities the largest finite bf16",
       "step-edges-weights"},
      // The far edges of SPEC 1.3 (only traces/extreme_batches.hpp reaches them) and a rule of SPEC 1.4.
      {Bug::kPassthroughSlotInt32, "bug:passthrough-slot-int32",
       "passthrough copies the common slot through an int32: a slot past 2^31 - 1 wraps (2^63 - 1 becomes -1)",
       "extreme-batches"},
      {Bug::kRowsPastGridLimit, "bug:rows-past-grid-limit",
       "the row kernel launches at most 65535 blocks of 256 rows without a grid-stride loop: rows from 16776960 on "
       "(N near 2^24) are never written",
       "extreme-batches"},
      {Bug::kRequestCapacityUnchecked, "bug:request-capacity-unchecked",
       "validation skips request_capacity (the kernel trusts its capacity): a batch with more requests is built",
       "invalid-input"},
      // Row roles and call sequences: content version 3 (docs/content.md "Stale padding") and the
      // runner's rejected calls (engine/scenario_runner.hpp) show them; version 2 did not.
      {Bug::kPaddingPositionZero, "bug:padding-position-zero",
       "the Q path ropes padding rows at position 0 (their logical position is -1) instead of their given positions",
       "stale-padding"},
      {Bug::kPassthroughMinusOneOnly, "bug:passthrough-minus-one-only",
       "passthrough slot_mapping copies the common slot of every row up to N, testing it against -1 only: a padding "
       "row's other negative slot (a stale value) is copied through",
       "stale-padding"},
      {Bug::kErrorStateSticks, "bug:error-state-sticks",
       "a rejected step's error is kept in the instance (a status word never reset): the next call is rejected too",
       "rejected-call"},
      // Call sequences: the calls the runner makes on the same instance before steps 8,
      // 24, 40, ... (traces/interleaved_calls.hpp) show them; a scenario's own steps never end in a
      // step status, and never change the configuration.
      {Bug::kStepStatusSticks, "bug:step-status-sticks",
       "the step's status word is set by a group whose position lies past the RoPE table and never reset: after "
       "one step that reports position-out-of-range, every later step reports it too",
       "interleaved-call"},
      {Bug::kNormWeightsStagedOnce, "bug:norm-weights-staged-once",
       "the norm weights w_k and w_q are staged into a scratch buffer sized by the first call's D and restaged only "
       "when a call's D is larger: a later call with the same or a smaller D reads the weights of the call that "
       "grew the buffer",
       "interleaved-call"},
      // A capability decline: the runner sends a call the backend's declared limits exclude
      // before steps 8, 24, 40, ... and expects it declined; this kernel declares limits (no MRoPE).
      {Bug::kDeclineWordSticks, "bug:decline-word-sticks",
       "a text-model kernel (it declares no MRoPE and no ring positions) whose capability check sets the instance's "
       "error word and returns, the word cleared only after a successful step: the step after a declined call "
       "reports position-out-of-range",
       "declined-call"},
      // The prefix-cache classes: only a chunk that starts on blocks another request
      // wrote (a prefix hit) has no member of the group before it in its ring.
      {Bug::kReclosesGroupBeforeChunk, "bug:recloses-group-before-chunk",
       "the group loop starts at (s - 1) / C: a chunk starting on a group boundary pools the group before it again "
       "from the ring (its slot from the block table), which after the request's own chunks rewrites the same bytes, "
       "but on a prefix hit overwrites the last row of a shared block with whatever the new ring block held",
       "prefix-hit"},
      // Numerical alternatives (qsa/numeric_alternatives.hpp): another rounding of one SPEC 6 step.
      // Content versions 4 and 5 plant inputs on which each differs from the recipe (docs/content.md
      // "Numerical alternatives"); `needs` "alternatives" is the default workload's rows,
      // "edges-ratio" a compress ratio that is not a power of two.
      {Bug::kFmaContraction, "bug:fma-contraction",
       "built without -ffp-contract=off: RoPE (a*c - b*s) and the sum of squares use fused multiply-adds",
       "alternatives"},
      {Bug::kPoolReciprocalMultiply, "bug:pool-reciprocal-multiply",
       "pooling multiplies the sum by the reciprocal 1/C instead of dividing by C", "edges-ratio"},
      {Bug::kPoolPairwiseTree, "bug:pool-pairwise-tree",
       "pooling sums the C members by a pairwise tree instead of left to right", "alternatives"},
      {Bug::kPoolReverseOrder, "bug:pool-reverse-order", "pooling sums the C members from the last one down",
       "alternatives"},
      {Bug::kSumOfSquaresHalvingTree, "bug:sum-of-squares-halving-tree",
       "RMSNorm sums the squares by the halving tree (a_i + a_{i+w/2}, a shared-memory reduction), not SPEC 6's "
       "pairwise tree",
       "alternatives"},
      {Bug::kSumOfSquaresFma, "bug:sum-of-squares-fma",
       "RMSNorm's sum of squares fuses its first level, fma(x_2i, x_2i, x_2i+1^2): shows only on squares below "
       "2^-133 with an eps below them",
       "step-edges-column-major"},
      {Bug::kRsqrtSingleRounding, "bug:rsqrt-single-rounding",
       "RMSNorm's rrms = 1/sqrt(mean + eps) correctly rounded once (an exact rsqrt) instead of sqrt, then divide",
       "alternatives"},
      {Bug::kNormDividesByRms, "bug:norm-divides-by-rms",
       "RMSNorm divides each element by sqrt(mean + eps) instead of multiplying by its reciprocal", "alternatives"},
      {Bug::kNormScaleReassociated, "bug:norm-scale-reassociated",
       "RMSNorm computes x * (rrms * (1 + w)) instead of (x * rrms) * (1 + w)", "alternatives"},
      {Bug::kRopeFma, "bug:rope-fma",
       "RoPE computes a*c - b*s and b*c + a*s with one fused multiply-add each (fmaf(a, c, -(b*s))): shows only on "
       "products below 2^-133",
       "alternatives"},
      {Bug::kRopeProductsInBf16, "bug:rope-products-in-bf16",
       "RoPE rounds each product to bf16 before the add (bf16 multiplies)", "alternatives"},
      {Bug::kBf16NanCanonical, "bug:bf16-nan-canonical",
       "every bf16 rounding gives a NaN as 0x7FC0 (PyTorch's canonical NaN) instead of 0x7FFF", "alternatives"},
  };
  return catalog;
}

const std::vector<PlantedInfo>& known_escapes() {
  // Real deviations from SPEC 6 that no content separates (docs/planted-bugs.md "Known escapes"):
  // none since content version 5 builds rows for the last three.
  static const std::vector<PlantedInfo> escapes;
  return escapes;
}

const PlantedInfo& planted_info(Bug bug) {
  static const PlantedInfo control{Bug::kNoBug, "bug:none", "no planted bug: the re-implementation itself (a control)",
                                  ""};
  for (const auto* list : {&catalog(), &known_escapes()}) {
    const auto it = std::find_if(list->begin(), list->end(), [bug](const PlantedInfo& info) { return info.bug == bug; });
    if (it != list->end()) return *it;
  }
  return control;
}

}  // namespace qsa::planted
