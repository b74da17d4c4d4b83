#pragma once
// Planted-bug backends ("mutants"): each is the reference with one realistic kernel mistake, so
// `qsacheck mutants` and the tests can prove that the checks catch it. Links the reference only;
// the backends layer registers every catalog entry, hidden, so default campaigns leave it out.

#include <memory>
#include <string>
#include <vector>

#include "qsa/backend_interface.hpp"

namespace qsa::planted {

/// One planted bug. kNoBug is the unmutated re-implementation: the control that must pass everything.
enum class Bug {
  kNoBug,
  // Metadata (and the step update that consumes it).
  kRingIndexOffByOne,            // ring slot b·R + (p + 1) mod R, also in the step's reads
  kRingSuffixFilterDropped,      // every row of the chunk gets a ring slot
  kRingOneRowShort,              // the ring addresses p mod (R - 1): one row fewer than SPEC 3
  kVisibleBlocksOffByOne,        // (p + 2) / Cb
  kKWorkWithoutMinimum,          // n_j = e_j/C - s_j/C, no max(1, ...)
  kPaddingRowsNotInert,          // the row loop runs to N: padding rows look like the last request's
  kCompressedSlotIgnoresCommon,  // a negative common slot still gets a compressed slot (and a write)
  kTokenToReqLowerBound,         // lower_bound on qsl picks a zero-length request
  kBatchSplitExactPadding,       // rule 3 only when N = NR·q_0 (upstream's old assertion as a condition)
  // Validation (SPEC 1.4): right outputs on valid input, wrong behaviour on invalid input.
  kErrorIndexOneBased,            // the error index is reported 1-based (index + 1)
  kClearsOutputBeforeValidating,  // the split is zeroed before validation: a rejected input still gets outputs
  // Step update.
  kRingReadAfterCommit,           // phase B before phase A
  kPoolWrongRingRow,              // a member m < s_j is read from ring row (m + 1) mod R
  kGroupPositionIgnoresRingTail,  // group position (gC, gC, gC) although the ring caches positions
  kPositionTailNotWritten,        // the commit copies the key but not its (t, h, w)
  kQOutSkipsPadding,              // q_out is left unwritten on padding rows
  // Numerics.
  kWrongMropeAxis,         // h and w swapped in the MRoPE axis selection
  kFp8NoSaturation,        // plain RNE cast: beyond the fp8 range -> NaN, not ±448
  kPoolAccumulatesInBf16,  // the pooling sum rounded to bf16 after every add
  kNormWeightWithoutOne,   // RMSNorm multiplies by w instead of (1 + w) (Llama, not Gemma)
  kRopeInterleavedPairs,   // GPT-J pairs (2i, 2i + 1) instead of NeoX (i, hp + i)
  kRopeSignSlip,           // out_i = a·c + b·s: the sign of the sine term slipped
  // Step update, found with the float tolerance tests (docs/design.md "The float tolerance mode").
  kSkipsFirstClosedGroup,  // the group loop starts one group late: a chunk's first closing group is never written
  // Rounding (content version 2's boundary and special rows show them: docs/content.md).
  kBf16RoundHalfAway,  // every bf16 rounding breaks ties away from zero, not to even
  kBf16Truncation,     // every bf16 rounding truncates (drops the low 16 bits)
  kFlushSubnormals,    // subnormal inputs and results flushed to zero (DAZ + FTZ) in pool, norm and RoPE
  kE4m3Truncation,     // the fp8 store truncates towards zero instead of rounding to nearest even
  // The input classes of docs/input-space.md (edge_batch_generator.hpp, the `edges` workload).
  kSlotInt32Overflow,          // compressed slot b·S + g mod S computed in int32: wraps past 2^31
  kRequestsCappedAt1024,       // token_to_req searches a 1024-entry copy of qsl: requests past 1023 unseen
  kCompressRatioShift,         // C assumed a power of two: p >> log2(C) and (p + 1) & (C - 1)
  kZeroLengthFirstSkipped,     // the batch split takes q_0 from the first non-empty request
  kMropeProportionalSections,  // MRoPE sections assumed in the model's 11:11:10 proportion, given ones ignored
  // The step classes of docs/input-space.md (the step-edges workload).
  kCacheRowsPacked,           // cache rows addressed width apart: the row stride's padding ignored
  kCacheBlocksPacked,         // cache blocks addressed rows * row stride apart: the block stride's padding ignored
  kBlockTableRowMajor,        // block table read as dense row-major (j * W + col): its strides ignored
  kMissingBlockAsBlockZero,   // a negative block id (no block) read as block 0
  kSplitAssumesDecodesFirst,  // batch split rule 2 as "no request with 0 < q <= T" (true only with decodes first)
  kStopsAtZeroLengthRequest,  // the step's request loops stop at the first zero-length request
  kAllPaddingStepSkipped,     // a step with M = 0 returns at once: q_out of its padding rows unwritten
  kEpsClampedToOne,           // eps clamped to at most 1 before the norm
  kWeightsNanToNum,           // norm weights sanitized: NaN -> 0, +-inf -> +-the largest finite bf16
  // The far edges of SPEC 1.3 and the rules of SPEC 1.4 (traces/extreme_batches.hpp, invalid_batch.hpp).
  kPassthroughSlotInt32,     // passthrough copies the common slot through an int32: slots past 2^31 wrap
  kRowsPastGridLimit,        // at most 65535 blocks of 256 rows, no grid-stride loop: rows past 2^24 - 256 unwritten
  kRequestCapacityUnchecked,  // validation skips request_capacity: a batch with more requests is built
  // Row roles and call sequences (content version 3's stale padding, the runner's rejected calls).
  kPaddingPositionZero,       // the Q path ropes padding rows at position 0 (their metadata position is -1)
  kPassthroughMinusOneOnly,   // passthrough treats only -1 as "no slot": other negative slots copied through
  kErrorStateSticks,          // a rejected call's error is kept (a status word never reset): the next call fails
  kStepStatusSticks,          // a step's position-out-of-range status word is never reset: every later step reports it
  kNormWeightsStagedOnce,     // the norm weights staged in a scratch sized by the first call's D, restaged only when D grows
  kDeclineWordSticks,         // declares no MRoPE; a declined call's error word is kept: the next step reports it as its status
  // The prefix-cache classes (a chunk starting on blocks another request wrote).
  kReclosesGroupBeforeChunk,  // the group loop starts at (s - 1) / C: a chunk on a group boundary re-pools the last closed group from the ring
  // Numerical alternatives (qsa/numeric_alternatives.hpp): another rounding of one SPEC 6 step,
  // shown by content versions 4 and 5 (docs/content.md "Numerical alternatives").
  kFmaContraction,            // RoPE and the sum of squares with fused multiply-adds
  kSumOfSquaresSequential,    // sum of squares left to right instead of the pairwise tree
  kPoolReciprocalMultiply,    // pooled = s * (1/C) instead of s / C
  kPoolPairwiseTree,          // the pooling sum by a pairwise tree
  kPoolReverseOrder,          // the pooling sum from the last member down
  kSumOfSquaresHalvingTree,   // the sum of squares by the halving tree (a_i + a_{i+w/2})
  kSumOfSquaresFma,           // the sum of squares' first level fused: fma(x_2i, x_2i, x_2i+1^2)
  kRsqrtSingleRounding,       // rrms = 1/sqrt(mean + eps) rounded once
  kNormDividesByRms,          // y = (x / rms) * (1 + w)
  kNormScaleReassociated,     // y = x * (rrms * (1 + w))
  kRopeFma,                   // RoPE's a*c - b*s and b*c + a*s with one fused multiply-add each
  kRopeProductsInBf16,        // RoPE products rounded to bf16 before the add
  kBf16NanCanonical,          // every bf16 rounding gives NaN as 0x7FC0
};

/// The arithmetic a planted backend computes with. kUpstreamLike stands for a kernel from outside
/// the tree (approximate rsqrt, products rounded to bf16 before the RoPE add, tree-ordered
/// pooling): not bit-exact, but within SPEC 6's row-ulp tolerance. Test-only.
enum class Arithmetic { kCanonical, kUpstreamLike };

struct PlantedInfo {
  Bug bug = Bug::kNoBug;
  std::string name;         // "bug:ring-index-off-by-one"
  std::string description;  // one line: the bug as a kernel engineer would write it
  std::string needs;        // the scenario feature that shows it: "", "mrope", "fp8", "drafts", ...;
                            // "invalid-input": no scenario shows it (scenarios are valid by construction);
                            // "extreme-batches": only the extreme batches (N near 2^24, slots past 2^31)
};

/// Every planted bug that the checks catch, in enum order (kNoBug excluded). Names are unique and
/// start with "bug:". These are the registered backends.
const std::vector<PlantedInfo>& catalog();

/// Planted bugs that the checks cannot see on the scenarios' content, and why (`needs`: what a
/// scenario would need to show them). Not registered: a campaign would only report them as
/// survivors. The sanity test keeps them listed here until some check starts catching them.
const std::vector<PlantedInfo>& known_escapes();

/// The entry of `bug` in either list (kNoBug: name "bug:none", the control).
const PlantedInfo& planted_info(Bug bug);

/// A backend with `bug` planted; Bug::kNoBug gives the control (equal to the reference). With
/// Arithmetic::kUpstreamLike it is named "upstream-like" (+ "+" and the bug's name when one is planted).
std::unique_ptr<Backend> make_planted_backend(Bug bug, Arithmetic arithmetic = Arithmetic::kCanonical);

/// The name of the upstream-like backend (the backends layer registers it hidden).
inline constexpr const char* kUpstreamLikeBackend = "upstream-like";

}  // namespace qsa::planted
