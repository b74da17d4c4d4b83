#pragma once
// The input-space inventory: every input parameter and value class SPEC 1-6 allows, one
// row each, kept as data so that docs/input-space.md (input_space_markdown()) and the coverage
// counters (input_space_coverage.hpp) are generated from the same table and cannot drift. A row
// names its SPEC clause, its legal range or value class, the inputs it applies to and, for a
// numeric range, the bounds lo and hi whose edges lo, lo + 1, hi - 1 and hi a campaign must reach
// (those of them that are legal values).

#include <cstdint>
#include <string>
#include <vector>

#include "qsa/input_fields.hpp"

namespace qsa::engine {

/// Which generated inputs feed a row.
enum class InputScope {
  kBatch,  // metadata batches (the generated and invalid batches of `qsacheck check`)
  kStep,   // step-update inputs of the scenarios
  kBoth,   // both: reached once a metadata batch and a step input had it
};
const char* to_string(InputScope scope);  // "batch", "step", "both"

/// The values a ranged row takes between lo and hi; kClass: a value class, counted, no range.
enum class ValueSet { kClass, kIntegers, kEvenIntegers, kPowersOfTwo };

/// The rows in docs order; a row's index is its InputClassId.
enum class InputClassId : int {
  // SPEC 1.1, 1.3: sizes of the batch
  kNumActualTokens,
  kNumRequests,
  kMoreThan1024Requests,
  kNumMappedTokens,
  kPaddingRows,
  kQueryLen,
  kSeqLen,
  kChunkStart,
  kReorderBatchThreshold,
  // SPEC 1.2, 1.3: cache kind and its parameters
  kKindCompressed,
  kKindRing,
  kKindPassthrough,
  kCompressRatio,
  kCompressRatioNonPowerOfTwoBatch,
  kCompressRatioNonPowerOfTwoStep,
  kRingBuilderRatio,
  kRingBuilderRatioOmitted,
  kPassthroughRatioOmitted,
  kPassthroughRatioOne,
  kStorageBlockSize,
  kRingCapacity,
  kRequestCapacity,
  kRequestCapacityOmitted,
  // SPEC 1.1, 2: padding layouts and request order
  kPaddedRequestsAtTail,
  kTokenOnlyPadding,
  kAllPadding,
  kZeroLengthRequestFirst,
  kZeroLengthRequestInside,
  kZeroLengthRequestWithContext,
  kDecodeBeforePrefill,
  kPrefillBeforeDecode,
  kSplitAllDecodesThresholdOne,
  kSplitFirstRequestPrefill,
  kSplitPaddedUniform,
  kSplitUniformNotNTimesQ0,
  kSplitDecodesThenPrefills,
  kChunkLongerThanRing,
  kChunkWithoutClosingGroup,
  // SPEC 1.1, 1.3, 4, 5: block tables, block ids, slots, missing blocks
  kBlockTableWidth,
  kBlockTableRowsBeyondRequests,
  kBlockTableColumnMajor,
  kBlockTableColumnSlice,
  kBlockId,
  kBlockIdNegative,
  kMissingCompressedColumn,
  kMissingCompressedBlock,
  kMissingRingBlock,
  kCompressedBlockInCache,
  kCompressedBlockPastCache,
  kRingBlockInCache,
  kRingBlockPastCache,
  kCompressedCacheRowStridePadded,
  kCompressedCacheBlockStridePadded,
  kRingCacheRowStridePadded,
  kRingCacheBlockStridePadded,
  kCommonSlot,
  kCommonSlotNegative,
  kNegativeCommonSlotOnRealRow,
  kNegativeCommonSlotOnClosingRow,
  kCommonSlotMappingLongerThanN,
  // SPEC 1.4, 5, 6: the step update's parameters
  kHeadDim,
  kRotaryDim,
  kRotaryDimPartial,
  kRotaryDimFull,
  kNumHeads,
  kEpsSubnormal,
  kEpsNormalBelowOne,
  kEpsAtLeastOne,
  kEpsMaxFinite,
  kMropeOff,
  kMropeOn,
  kMropeSectionsModelProportions,
  kMropeSectionsOtherSplit,
  kMropeSectionZero,
  kMropeSectionBeyondInterleave,
  kStoreBf16,
  kStoreFp8E4m3,
  kMaxPosition,
  kPosition,
  kPositionAxesDiffer,
  kGroupReachesBackIntoRing,
  // SPEC 7: prefix-cache hits (a chunk reading blocks another request wrote)
  kPrefixHitOnFinishedRequest,
  kPrefixHitDeeperThanOneBlock,
  kPrefixHitAfterBlockReuse,
  kPrefixHitSharedByLiveRequests,
  // SPEC 1.4, 5: calls on the same backend instance before a valid step
  kCallRejectedBeforeStep,
  kCallStepStatusBeforeStep,
  kCallOtherConfigurationBeforeStep,
  kCallDeclinedBeforeStep,         // needs a backend with declared limits (InputClass::needs_declared_limits)
  kInstanceServesAnotherGeometry,  // a scenario on an instance that ran one of another geometry before
  // SPEC 6: special float values in keys, queries and norm weights
  kKeyNan,
  kKeyPositiveInfinity,
  kKeyNegativeInfinity,
  kKeySubnormal,
  kKeyNegativeZero,
  kQueryNan,
  kQueryPositiveInfinity,
  kQueryNegativeInfinity,
  kQuerySubnormal,
  kQueryNegativeZero,
  kWeightNan,
  kWeightPositiveInfinity,
  kWeightNegativeInfinity,
  kWeightSubnormal,
  kWeightNegativeZero,
  // SPEC 6: rows holding an input on which a numerical alternative differs from the recipe
  // (content versions 4 and 5, traces/alternative_content.hpp), one row per alternative content plants
  kAlternativePoolReciprocalMultiply,
  kAlternativePoolPairwiseTree,
  kAlternativePoolReverseOrder,
  kAlternativeRsqrtSingleRounding,
  kAlternativeSumOfSquaresHalvingTree,
  kAlternativeSumOfSquaresFma,
  kAlternativeNormDividesByRms,
  kAlternativeNormScaleReassociated,
  kAlternativeRopeFma,
  // SPEC 1.4: the validation rules of a metadata input (the campaign's invalid batches), one row
  // per breakable rule of reference's rule table: kInvalidRuleFirst + k is qsa::breakable_rule(k)
  kInvalidRuleFirst,
  // Row roles x fields: one row per (field, role other than live) where the field has elements,
  // in reference's field table order (qsa/input_fields.hpp): kRoleDomainFirst + k is the k-th
  // such pair, reached when a step holds a stale, extreme or adversarial legal value there.
  kRoleDomainFirst = kInvalidRuleFirst + qsa::kNumBreakableRules,
  kCount = kRoleDomainFirst + qsa::kNumRoleDomains
};
/// The row of field `field` on role `role` (a pair the field table gives elements); throws
/// std::logic_error for another.
InputClassId role_domain_class(const std::string& field, qsa::RowRole role);

/// The row counting metadata batches that `rule` rejects (a breakable rule of qsa/input_fields.hpp).
InputClassId invalid_rule_class(qsa::Rule rule);
/// One row of the inventory, indexed by InputClassId.
struct InputClass {
  InputClassId which;     // its index in the table (checked when the table is built)
  const char* id;         // stable snake_case name (reports and docs use it)
  const char* clause;     // SPEC clause(s), e.g. "1.3", "5, 6.3"
  const char* parameter;  // the input or its property
  const char* legal;      // legal range or value class, in the SPEC's words
  InputScope scope;
  ValueSet values;
  int64_t lo = 0;  // ranged rows: the smallest legal value
  int64_t hi = 0;  //   and the largest (the practical bound where the SPEC has none: see note)
  /// hi depends on the input (max_position - 1, the cache's num_blocks - 1): the edges hi - 1 and
  /// hi are judged per input; `hi` above is the largest it can be.
  bool hi_per_input = false;
  const char* note = "";  // why a practical bound, or what exactly is counted
  /// Reached only on a backend that declares limits (a plugin's or worker's capabilities and
  /// constraints): inputs alone never reach it, so `input-space --campaign` lists it apart and
  /// never as a gap; `check --input-space` on such a backend counts it.
  bool needs_declared_limits = false;
};

inline constexpr int kNumInputClasses = static_cast<int>(InputClassId::kCount);

/// The inventory, [kNumInputClasses] rows, row i describing InputClassId i.
const std::vector<InputClass>& input_classes();
const InputClass& input_class(InputClassId id);

/// The edges of a ranged row, in the order lo, lo + 1, hi - 1, hi.
inline constexpr int kNumEdges = 4;
const char* edge_name(int edge);  // "lo", "lo+1", "hi-1", "hi"
/// Whether edge `edge` is a legal value of the row (and so must be reached): lo + 1 of a power of
/// two is not, nor are the edges of a range too short to have them.
bool edge_is_legal(const InputClass& row, int edge);

/// docs/input-space.md, generated from the table (`qsacheck input-space` prints it).
std::string input_space_markdown();

}  // namespace qsa::engine
