#include "qsa/engine/input_space.hpp"

#include <deque>
#include <stdexcept>
#include <string>
#include <utility>

#include "qsa/types.hpp"

namespace qsa::engine {
namespace {

constexpr InputScope kBatch = InputScope::kBatch;
constexpr InputScope kStep = InputScope::kStep;
constexpr InputScope kBoth = InputScope::kBoth;
constexpr int64_t kMinInt32 = -kMaxInt32 - 1;
constexpr int64_t kMaxInt64 = INT64_MAX;
constexpr int64_t kMinInt64 = INT64_MIN;

InputClass value_class(InputClassId which, const char* id, const char* clause, const char* parameter, const char* legal,
                       InputScope scope, const char* note = "") {
  return InputClass{which, id, clause, parameter, legal, scope, ValueSet::kClass, 0, 0, false, note};
}

InputClass range(InputClassId which, const char* id, const char* clause, const char* parameter, const char* legal,
                 InputScope scope, ValueSet values, int64_t lo, int64_t hi, const char* note = "",
                 bool hi_per_input = false) {
  return InputClass{which, id, clause, parameter, legal, scope, values, lo, hi, hi_per_input, note};
}

// A row that only a backend with declared limits reaches (InputClass::needs_declared_limits).
InputClass declined_call(InputClass row) {
  row.needs_declared_limits = true;
  return row;
}

// A generated text kept for the table's lifetime (InputClass holds C strings).
const char* keep(std::string text) {
  static std::deque<std::string> texts;
  return texts.emplace_back(std::move(text)).c_str();
}

// "invalid_<field>", or "invalid_<field>_<rule>" when the field has more than one rule.
const char* invalid_rule_id(const RuleInfo& rule) {
  std::string name = std::string("invalid_") + rule.field;
  if (rules_of_field(rule.field).size() > 1) name += std::string("_") + rule.rule;
  for (char& ch : name)
    if (ch == '-') ch = '_';
  return keep(std::move(name));
}

const char* invalid_rule_legal(const RuleInfo& rule) { return keep(std::string("rule ") + rule.rule); }

// What InputSpaceCoverage counts for a (field, role) row (input_space_coverage.cpp, count_roles).
const char* role_domain_note(const std::string& field, RowRole role) {
  switch (role) {
    case RowRole::kPadding:
      if (field == "common_slot_mapping") return "a padding row's slot is negative and not -1";
      if (field == "keys") return "a padding row's key is a live row's (it spells a live origin)";
      if (field == "queries") return "a padding row's queries are those of the live row whose key it holds";
      if (field == "positions") return "a padding row's position is not 0 on some axis";
      break;
    case RowRole::kRejectedDraft:
      return "a step with a row that verification rejects";
    case RowRole::kZeroLengthRequest:
      if (field == "query_start_loc") return "a request with q_j = 0";
      if (field == "seq_lens") return "a request with q_j = 0 and e_j > 0";
      return "a zero-length request's row holds a block id a live request of the step holds";
    case RowRole::kRequestPastNr:
      return "a table row past NR holds a block id a live request of the step holds";
    case RowRole::kColumnPastW:
      return "table storage past the W used columns holds a block id a live request of the step holds";
    default:
      break;
  }
  return "";
}

std::vector<InputClass> make_table() {
  using V = ValueSet;
  using I = InputClassId;
  std::vector<InputClass> t = {
      // ---- sizes (1.1, 1.3)
      range(I::kNumActualTokens, "num_actual_tokens", "1.3", "N (num_actual_tokens)", "M <= N <= 2^24", kBoth,
            V::kIntegers, 0, kMaxTokens),
      range(I::kNumRequests, "num_requests", "1.3", "NR = len(query_start_loc) - 1, padded requests included",
            "1 <= NR <= 2^20 (query_start_loc needs 2 entries)", kBoth, V::kIntegers, 1, kMaxRequests),
      value_class(I::kMoreThan1024Requests, "more_than_1024_requests", "1.3, 9", "NR > 1024", "NR in (1024, 2^20]",
                  kBoth,
                  "past vLLM's 1024-sequence default: a kernel that gives each request a thread of one block breaks"),
      range(I::kNumMappedTokens, "num_mapped_tokens", "1.1", "M = query_start_loc[NR]", "0 <= M <= N", kBoth,
            V::kIntegers, 0, kMaxTokens),
      range(I::kPaddingRows, "padding_rows", "1.1", "N - M (CUDA-graph padding rows)", "0 <= N - M <= 2^24", kBoth,
            V::kIntegers, 0, kMaxTokens),
      range(I::kQueryLen, "query_len", "1.1", "q_j = qsl[j+1] - qsl[j], every request", "0 <= q_j <= M", kBoth,
            V::kIntegers, 0, kMaxTokens),
      range(I::kSeqLen, "seq_len", "1.3", "e_j = seq_lens[j], every request", "q_j <= e_j <= 2^31 - 1 (int32)", kBoth,
            V::kIntegers, 0, kMaxInt32),
      range(I::kChunkStart, "chunk_start", "1.1", "s_j = e_j - q_j, every request", "0 <= s_j <= 2^31 - 1", kBoth,
            V::kIntegers, 0, kMaxInt32),
      range(I::kReorderBatchThreshold, "reorder_batch_threshold", "1.1, 1.4", "T (decode threshold)", "1 <= T <= 2^24",
            kBoth, V::kIntegers, 1, kMaxTokens,
            "SPEC 1.1 says T >= 1; validate() bounds it by N's limit (a larger T decides as 2^24 does)"),
      // ---- cache kind and parameters (1.2, 1.3)
      value_class(I::kKindCompressed, "kind_compressed", "1.2", "cache kind", "compressed", kBatch),
      value_class(I::kKindRing, "kind_ring", "1.2", "cache kind", "ring", kBatch),
      value_class(I::kKindPassthrough, "kind_passthrough", "1.2", "cache kind", "passthrough", kBatch),
      range(I::kCompressRatio, "compress_ratio", "1.2, 1.3", "C (compressed kind, step update)", "2 <= C <= 1024",
            kBoth, V::kIntegers, 2, kMaxCompressRatio),
      value_class(I::kCompressRatioNonPowerOfTwoBatch, "compress_ratio_non_power_of_two_batch", "1.3",
                  "C of a compressed metadata batch", "not a power of two (3, 5, 6, ...)", kBatch),
      value_class(I::kCompressRatioNonPowerOfTwoStep, "compress_ratio_non_power_of_two_step", "1.3, 6.1",
                  "C of a step scenario", "not a power of two: pooling divides by C, group arithmetic cannot shift",
                  kStep),
      range(I::kRingBuilderRatio, "ring_builder_ratio", "1.2", "ring kind compress_ratio (builder ratio Cb)",
            "1 <= Cb <= 1024", kBatch, V::kIntegers, 1, kMaxCompressRatio),
      value_class(I::kRingBuilderRatioOmitted, "ring_builder_ratio_omitted", "1.2", "ring kind compress_ratio",
                  "omitted (default 1)", kBatch),
      value_class(I::kPassthroughRatioOmitted, "passthrough_ratio_omitted", "1.2", "passthrough compress_ratio",
                  "omitted", kBatch),
      value_class(I::kPassthroughRatioOne, "passthrough_ratio_one", "1.2", "passthrough compress_ratio", "1", kBatch),
      range(I::kStorageBlockSize, "storage_block_size", "1.2, 1.3", "S (compressed rows per block)", "1 <= S <= 2^20",
            kBoth, V::kIntegers, 1, kMaxStorageBlockSize),
      range(I::kRingCapacity, "ring_capacity", "1.2, 1.3, 3", "R (ring rows per block)", "1 <= R <= 2^20", kBoth,
            V::kIntegers, 1, kMaxRingCapacity),
      range(I::kRequestCapacity, "request_capacity", "1.2", "compressed request_capacity", "NR <= capacity <= 2^20",
            kBatch, V::kIntegers, 1, kMaxRequests),
      value_class(I::kRequestCapacityOmitted, "request_capacity_omitted", "1.2", "compressed request_capacity",
                  "omitted (default NR)", kBatch),
      // ---- padding layouts and request order (1.1, 2)
      value_class(I::kPaddedRequestsAtTail, "padded_requests_at_tail", "1.1", "CUDA-graph padding",
                  "zero-length requests with seq_len 0 at the end", kBoth),
      value_class(I::kTokenOnlyPadding, "token_only_padding", "1.1", "CUDA-graph padding",
                  "N > M with no padded request", kBoth),
      value_class(I::kAllPadding, "all_padding", "1.1", "CUDA-graph padding", "M = 0 < N: every row is padding", kBoth),
      value_class(I::kZeroLengthRequestFirst, "zero_length_request_first", "1.1", "request order",
                  "request 0 has q_0 = 0 and a later request has rows", kBoth),
      value_class(I::kZeroLengthRequestInside, "zero_length_request_inside", "1.1", "request order",
                  "a zero-length request after one with rows and before another with rows", kBoth),
      value_class(I::kZeroLengthRequestWithContext, "zero_length_request_with_context", "1.1", "a zero-length request",
                  "q_j = 0 with e_j > 0", kBoth),
      value_class(I::kDecodeBeforePrefill, "decode_before_prefill", "2", "request order",
                  "a request with 0 < q <= T before one with q > T (vLLM's order)", kBoth),
      value_class(I::kPrefillBeforeDecode, "prefill_before_decode", "2", "request order",
                  "a request with q > T before one with 0 < q <= T", kBoth),
      value_class(I::kSplitAllDecodesThresholdOne, "split_all_decodes_threshold_one", "2", "batch split",
                  "rule 1: max_query_len <= T <= 1", kBoth),
      value_class(I::kSplitFirstRequestPrefill, "split_first_request_prefill", "2", "batch split",
                  "rule 2: q_0 > T (no decodes)", kBoth),
      value_class(I::kSplitPaddedUniform, "split_padded_uniform", "2", "batch split",
                  "rule 3: every q_j is q_0 or 0 (all decodes)", kBoth),
      value_class(I::kSplitUniformNotNTimesQ0, "split_uniform_not_n_times_q0", "2, 10", "batch split",
                  "rule 3 with N != NR * q_0 (upstream's dropped assertion)", kBoth),
      value_class(I::kSplitDecodesThenPrefills, "split_decodes_then_prefills", "2", "batch split",
                  "rule 4: the first q_j != q_0 (a zero-length one counts) starts the prefills", kBoth),
      value_class(I::kChunkLongerThanRing, "chunk_longer_than_ring", "2", "q_j against R (ring kind, step update)",
                  "q_j > R: only the last R rows keep ring slots", kBoth),
      value_class(I::kChunkWithoutClosingGroup, "chunk_without_closing_group", "2, 5",
                  "q_j against C (compressed kind, step update)",
                  "q_j > 0 and no group closes: n_j = 1 commits the ring suffix only", kBoth),
      // ---- block tables, ids, slots, missing blocks (1.1, 1.3, 4, 5)
      range(I::kBlockTableWidth, "block_table_width", "1.1", "W (block-table columns)",
            "W >= 0; the generators go to 4096", kBoth, V::kIntegers, 0, 4096,
            "SPEC 1.1 sets no bound; 4096 columns is where the batch generator caps its tables (64 Ki tokens at "
            "C * S = 16, past SPEC 9's longest contexts)"),
      value_class(I::kBlockTableRowsBeyondRequests, "block_table_rows_beyond_requests", "1.1", "block-table rows",
                  "more rows than NR (sized for "
                  "max_num_seqs)",
                  kBoth),
      value_class(I::kBlockTableColumnMajor, "block_table_column_major", "1.1", "block-table strides",
                  "column-major (row stride 1)", kBoth),
      value_class(I::kBlockTableColumnSlice, "block_table_column_slice", "1.1", "block-table strides",
                  "a column slice of a wider table: row stride > W", kBoth),
      range(I::kBlockId, "block_id", "1.3", "a block-table entry >= 0 (rows < NR, columns < W)",
            "0 <= b <= 2^31 - 1 (int32)", kBoth, V::kIntegers, 0, kMaxInt32),
      range(I::kBlockIdNegative, "block_id_negative", "1.1",
            "a negative block-table entry (no block; rows < NR, columns < W)", "-2^31 <= b <= -1", kBoth, V::kIntegers,
            kMinInt32, -1),
      value_class(I::kMissingCompressedColumn, "missing_compressed_column", "2, 5",
                  "a closing group's logical block L = g / S", "L >= W: no column, no slot", kBoth),
      value_class(I::kMissingCompressedBlock, "missing_compressed_block", "2, 5", "a closing group's block-table entry",
                  "negative: no slot", kBoth),
      value_class(I::kMissingRingBlock, "missing_ring_block", "2, 5", "the ring block of a request with rows",
                  "negative, or W = 0: no ring slot (a step reads zeros)", kBoth),
      range(I::kCompressedBlockInCache, "compressed_block_in_cache", "4",
            "compressed block id of a step (entries >= 0 of rows < NR)", "0 <= b <= num_blocks - 1", kStep,
            V::kIntegers, 0, kMaxInt32 - 1, "hi = the cache's num_blocks - 1", true),
      value_class(I::kCompressedBlockPastCache, "compressed_block_past_cache", "4, 5", "compressed block id of a step",
                  "b >= num_blocks: its slots are past the cache (skipped)", kStep),
      range(I::kRingBlockInCache, "ring_block_in_cache", "4", "ring block id of a step (column 0 of rows < NR)",
            "0 <= b <= num_blocks - 1", kStep, V::kIntegers, 0, kMaxInt32 - 1, "hi = the ring's num_blocks - 1", true),
      value_class(I::kRingBlockPastCache, "ring_block_past_cache", "4, 5", "ring block id of a step",
                  "b >= num_blocks: its slots are past the cache (reads zeros, no commit)", kStep),
      value_class(I::kCompressedCacheRowStridePadded, "compressed_cache_row_stride_padded", "4",
                  "compressed cache row stride", "> width (D elements)", kStep),
      value_class(I::kCompressedCacheBlockStridePadded, "compressed_cache_block_stride_padded", "4",
                  "compressed cache block stride", "> rows * row stride (pages packed beside the main KV pages)",
                  kStep),
      value_class(I::kRingCacheRowStridePadded, "ring_cache_row_stride_padded", "4", "ring cache row stride",
                  "> width (D, or P + 12 with positions)", kStep),
      value_class(I::kRingCacheBlockStridePadded, "ring_cache_block_stride_padded", "4", "ring cache block stride",
                  "> rows * row stride", kStep),
      range(I::kCommonSlot, "common_slot", "1.1", "a common_slot_mapping entry >= 0 (rows < N)",
            "0 <= slot <= 2^63 - 1 (int64)", kBoth, V::kIntegers, 0, kMaxInt64,
            "passthrough copies it whole: int64 all the way"),
      range(I::kCommonSlotNegative, "common_slot_negative", "1.1", "a negative common_slot_mapping entry (rows < N)",
            "-2^63 <= slot <= -1", kBoth, V::kIntegers, kMinInt64, -1),
      value_class(I::kNegativeCommonSlotOnRealRow, "negative_common_slot_on_real_row", "1.1, 2",
                  "common slot of a row t < M", "negative", kBoth),
      value_class(I::kNegativeCommonSlotOnClosingRow, "negative_common_slot_on_closing_row", "2",
                  "common slot of a group-closing row", "negative: the group gets no compressed slot", kBoth),
      value_class(I::kCommonSlotMappingLongerThanN, "common_slot_mapping_longer_than_n", "1.1",
                  "common_slot_mapping length", "> N ([>= N])", kBoth),
      // ---- the step update's parameters (1.4, 5, 6)
      range(I::kHeadDim, "head_dim", "1.4, 5", "D", "a power of two, 32 <= D <= 512", kStep, V::kPowersOfTwo, 32, 512),
      range(I::kRotaryDim, "rotary_dim", "1.4, 6.3", "rd", "even, 2 <= rd <= D", kStep, V::kEvenIntegers, 2, 512),
      value_class(I::kRotaryDimPartial, "rotary_dim_partial", "6.3", "rd against D",
                  "rd < D: elements [rd, D) pass through", kStep),
      value_class(I::kRotaryDimFull, "rotary_dim_full", "6.3", "rd against D", "rd = D", kStep),
      range(I::kNumHeads, "num_heads", "1.4, 5", "HQ", "1 <= HQ <= 1024", kStep, V::kIntegers, 1, 1024,
            "SPEC 5 sets no bound; validate_step() takes 1024 (q is [N, HQ, D])"),
      value_class(I::kEpsSubnormal, "eps_subnormal", "1.4, 6.2", "eps", "finite, > 0: subnormal (< 2^-126)", kStep),
      value_class(I::kEpsNormalBelowOne, "eps_normal_below_one", "1.4, 6.2", "eps",
                  "finite, > 0: normal, < 1 (SPEC 9: 1e-6)", kStep),
      value_class(I::kEpsAtLeastOne, "eps_at_least_one", "1.4, 6.2", "eps", "finite, >= 1 (dominates the mean square)",
                  kStep),
      value_class(I::kEpsMaxFinite, "eps_max_finite", "1.4, 6.2", "eps", "the largest finite binary32", kStep),
      value_class(I::kMropeOff, "mrope_off", "5", "MRoPE sections",
                  "absent: 1-D positions, group position (gC, gC, gC)", kStep),
      value_class(I::kMropeOn, "mrope_on", "5, 6.3", "MRoPE sections",
                  "present: [3, N] positions, the ring caches them", kStep),
      value_class(I::kMropeSectionsModelProportions, "mrope_sections_model_proportions", "6.3, 9", "MRoPE sections",
                  "the real model's 11/11/10 split scaled to hp (ScenarioConfig::mrope_sections)", kStep),
      value_class(I::kMropeSectionsOtherSplit, "mrope_sections_other_split", "6.3", "MRoPE sections",
                  "any other split summing to hp", kStep),
      value_class(I::kMropeSectionZero, "mrope_section_zero", "6.3", "MRoPE sections", "a section of 0", kStep),
      value_class(I::kMropeSectionBeyondInterleave, "mrope_section_beyond_interleave", "6.3", "MRoPE sections",
                  "3 * sec_h > hp or 3 * sec_w > hp: the i < 3 * sec bound never cuts", kStep),
      value_class(I::kStoreBf16, "store_bf16", "5, 6.4", "store dtype", "bf16", kStep),
      value_class(I::kStoreFp8E4m3, "store_fp8_e4m3", "5, 6.4", "store dtype", "fp8 e4m3fn with saturation", kStep),
      range(I::kMaxPosition, "max_position", "1.4, 5", "max_position (rows of cos_sin)",
            "1 <= max_position; the generators go to "
            "262144",
            kStep, V::kIntegers, 1, 262144,
            "validate_step() takes up to 2^31 - 1 rows; 262144 (the real model's 256 Ki context) keeps cos_sin at "
            "32 MiB for rd = 64"),
      range(I::kPosition, "position", "1.4, 5", "a row position, every axis", "0 <= p <= max_position - 1", kStep,
            V::kIntegers, 0, kMaxInt32 - 1, "hi = the scenario's max_position - 1", true),
      value_class(I::kPositionAxesDiffer, "position_axes_differ", "4, 6.3", "(t, h, w) of a row",
                  "not all equal (MRoPE)", kStep),
      value_class(I::kGroupReachesBackIntoRing, "group_reaches_back_into_ring", "5",
                  "the first group closing in a chunk", "s_j mod C != 0: members before s_j come from the ring", kStep),
      // ---- prefix-cache hits (7): what a (re)started request's first chunk reads below s_j
      value_class(I::kPrefixHitOnFinishedRequest, "prefix_hit_on_finished_request", "7", "a prefix hit's shared blocks",
                  "a block whose writer has finished or been preempted (kept by the prefix cache)", kStep,
                  "counted per hit by PrefixHitTracker over the scenario's records (traces/prefix_hits.hpp)"),
      value_class(I::kPrefixHitDeeperThanOneBlock, "prefix_hit_deeper_than_one_block", "7", "a prefix hit's depth",
                  "s_j >= 2B: two or more shared blocks", kStep),
      value_class(I::kPrefixHitAfterBlockReuse, "prefix_hit_after_block_reuse", "7", "a prefix hit's shared blocks",
                  "a block id an earlier owner wrote before the block's writer did (freed or evicted, then reused)",
                  kStep),
      value_class(I::kPrefixHitSharedByLiveRequests, "prefix_hit_shared_by_live_requests", "7",
                  "a prefix hit's shared blocks", "a block two or more other live requests hold", kStep),
      // ---- call sequences (1.4, 5): what an instance did just before a valid step
      value_class(I::kCallRejectedBeforeStep, "call_rejected_before_step", "1.4", "the call before a valid step",
                  "the step's input with one SPEC 1.4 rule broken, on the same instance and caches (rejected)", kStep,
                  "steps 0, 16, 32, ... of a content version 3 scenario (traces/interleaved_calls.hpp)"),
      value_class(I::kCallStepStatusBeforeStep, "call_step_status_before_step", "5", "the call before a valid step",
                  "a valid step ending in the step status position-out-of-range (a ring position tail past the "
                  "RoPE table), same instance, caches of its own",
                  kStep, "steps 8, 40, 72, ... of a content version 3 scenario"),
      value_class(I::kCallOtherConfigurationBeforeStep, "call_other_configuration_before_step", "1.2, 5",
                  "the call before a valid step",
                  "metadata of the three kinds and a step of another configuration (D, rd, HQ, C, S, R, store "
                  "dtype, positions, weights, RoPE table), same instance, buffers of another shape",
                  kStep, "steps 24, 56, 88, ... of a content version 3 scenario"),
      declined_call(value_class(
          I::kCallDeclinedBeforeStep, "call_declined_before_step", "1.2, 5", "the call before a valid step",
          "a step-status or other-configuration call that the backend's declared limits exclude, sent all the same: "
          "declined (missing-capability), nothing written, same instance",
          kStep,
          "steps 8, 24, 40, ... when the backend declares limits that exclude the call; inputs alone never reach it")),
      value_class(I::kInstanceServesAnotherGeometry, "instance_serves_another_geometry", "1.2, 5",
                  "the backend instance a scenario runs on",
                  "one that ran a scenario of another geometry (D, rd, HQ, C, S, R, store dtype, positions) before it",
                  kStep,
                  "a campaign keeps one backend instance per job thread and runs its jobs in turn on it (every "
                  "scenario's norm weights and RoPE table are its own); counted in campaign order, job k after job "
                  "k - 1, as one thread runs them, whatever --jobs and --shard say (a report does not depend on them)"),
      // ---- special float values (6)
      value_class(I::kKeyNan, "key_nan", "6", "a key element (bf16)", "NaN", kStep),
      value_class(I::kKeyPositiveInfinity, "key_positive_infinity", "6", "a key element", "+inf", kStep),
      value_class(I::kKeyNegativeInfinity, "key_negative_infinity", "6", "a key element", "-inf", kStep),
      value_class(I::kKeySubnormal, "key_subnormal", "6", "a key element", "subnormal (kept, no flush to zero)", kStep),
      value_class(I::kKeyNegativeZero, "key_negative_zero", "6", "a key element", "-0", kStep),
      value_class(I::kQueryNan, "query_nan", "6", "a query element (bf16)", "NaN", kStep),
      value_class(I::kQueryPositiveInfinity, "query_positive_infinity", "6", "a query element", "+inf", kStep),
      value_class(I::kQueryNegativeInfinity, "query_negative_infinity", "6", "a query element", "-inf", kStep),
      value_class(I::kQuerySubnormal, "query_subnormal", "6", "a query element", "subnormal", kStep),
      value_class(I::kQueryNegativeZero, "query_negative_zero", "6", "a query element", "-0", kStep),
      value_class(I::kWeightNan, "weight_nan", "6.2", "an element of w_k or w_q (bf16)", "NaN", kStep),
      value_class(I::kWeightPositiveInfinity, "weight_positive_infinity", "6.2", "an element of w_k or w_q", "+inf",
                  kStep),
      value_class(I::kWeightNegativeInfinity, "weight_negative_infinity", "6.2", "an element of w_k or w_q", "-inf",
                  kStep),
      value_class(I::kWeightSubnormal, "weight_subnormal", "6.2", "an element of w_k or w_q",
                  "subnormal (1 + w rounds to 1)", kStep),
      value_class(I::kWeightNegativeZero, "weight_negative_zero", "6.2", "an element of w_k or w_q", "-0", kStep),
      // ---- numerical alternatives (6): rows holding a searched input (docs/content.md versions 4, 5)
      value_class(I::kAlternativePoolReciprocalMultiply, "alternative_pool_reciprocal_multiply", "6.1",
                  "a committed key of a planted group", "a member of a tuple where s * (1/C) differs from s / C", kStep,
                  "C not a power of two (and not 5: identical there, docs/planted-bugs.md)"),
      value_class(I::kAlternativePoolPairwiseTree, "alternative_pool_pairwise_tree", "6.1",
                  "a committed key of a planted group", "a member of a tuple the pairwise tree pools differently",
                  kStep, "C >= 4"),
      value_class(I::kAlternativePoolReverseOrder, "alternative_pool_reverse_order", "6.1",
                  "a committed key of a planted group", "a member of a tuple the reverse order pools differently",
                  kStep, "C >= 3"),
      value_class(I::kAlternativeRsqrtSingleRounding, "alternative_rsqrt_single_rounding", "6.2", "a query row",
                  "a row whose norm differs with rrms rounded once", kStep),
      value_class(I::kAlternativeSumOfSquaresHalvingTree, "alternative_sum_of_squares_halving_tree", "6.2",
                  "a query row",
                  "a row whose sum of squares the halving tree rounds to the next float, its "
                  "result on a bf16 tie",
                  kStep, "bf16 store, rd < D"),
      value_class(I::kAlternativeSumOfSquaresFma, "alternative_sum_of_squares_fma", "6.2", "a query row",
                  "a row whose first tree level, fused, rounds its sum to the next float (a square below 2^-133), "
                  "its result on a bf16 tie",
                  kStep, "bf16 store, rd < D, D = 32, eps below about 2^-126 (step-edges:column-major)"),
      value_class(I::kAlternativeNormDividesByRms, "alternative_norm_divides_by_rms", "6.2", "a query row",
                  "a row whose result x * rrms lies on a bf16 tie that x / rms leaves", kStep, "bf16 store, rd < D"),
      value_class(I::kAlternativeNormScaleReassociated, "alternative_norm_scale_reassociated", "6.2", "a query row",
                  "a row whose result (x * rrms) * (1 + w) lies on a bf16 tie that x * (rrms * (1 + w)) leaves", kStep,
                  "bf16 store, rd < D"),
      value_class(I::kAlternativeRopeFma, "alternative_rope_fma", "6.3", "a query row at a tiny RoPE position",
                  "products below 2^-133 whose fused sum rounds differently", kStep),
  };
  // ---- validation rules of a metadata input (1.4), in their order: reference's rule table
  for (int k = 0; k < kNumBreakableRules; ++k) {
    const RuleInfo& rule = rule_info(breakable_rule(k));
    t.push_back(value_class(static_cast<I>(static_cast<int>(I::kInvalidRuleFirst) + k), invalid_rule_id(rule), "1.4",
                            rule.field, invalid_rule_legal(rule), kBatch));
  }
  // ---- row roles x fields: the values that must not matter (or matter only for q_out)
  int k = 0;
  for (const InputField& field : kFieldTable)
    for (int r = 1; r < kNumRowRoles; ++r) {
      const RoleDomain& domain = field.roles[r];
      if (domain.use == Use::kNone) continue;
      const auto role = static_cast<RowRole>(r);
      t.push_back(
          value_class(static_cast<I>(static_cast<int>(I::kRoleDomainFirst) + k++),
                      keep(std::string(to_string(role)) + "_" + field.name), field.clause,
                      keep(std::string(field.name) + " on a " + to_string(role) + " (" + to_string(domain.use) + ")"),
                      domain.legal, kStep, role_domain_note(field.name, role)));
    }
  for (size_t i = 0; i < t.size(); ++i)
    if (static_cast<size_t>(t[i].which) != i)
      throw std::logic_error(std::string("input_space: row ") + t[i].id + " is out of InputClassId's order");
  if (t.size() != static_cast<size_t>(kNumInputClasses))
    throw std::logic_error("input_space: the table and InputClassId disagree in length");
  return t;
}

bool is_power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

bool in_value_set(ValueSet values, int64_t v) {
  switch (values) {
    case ValueSet::kEvenIntegers:
      return v % 2 == 0;
    case ValueSet::kPowersOfTwo:
      return is_power_of_two(v);
    default:
      return true;
  }
}

}  // namespace

const char* to_string(InputScope scope) {
  switch (scope) {
    case InputScope::kBatch:
      return "batch";
    case InputScope::kStep:
      return "step";
    case InputScope::kBoth:
      return "both";
  }
  return "unknown";
}

const std::vector<InputClass>& input_classes() {
  static const std::vector<InputClass> table = make_table();
  return table;
}

const InputClass& input_class(InputClassId id) { return input_classes()[static_cast<size_t>(id)]; }

InputClassId role_domain_class(const std::string& field, RowRole role) {
  int k = 0;
  for (const InputField& f : kFieldTable)
    for (int r = 1; r < kNumRowRoles; ++r) {
      if (f.roles[r].use == Use::kNone) continue;
      if (field == f.name && static_cast<int>(role) == r)
        return static_cast<InputClassId>(static_cast<int>(InputClassId::kRoleDomainFirst) + k);
      ++k;
    }
  throw std::logic_error("input_space: " + field + " has no elements on a " + to_string(role));
}

InputClassId invalid_rule_class(Rule rule) {
  for (int k = 0; k < kNumBreakableRules; ++k)
    if (breakable_rule(k) == rule)
      return static_cast<InputClassId>(static_cast<int>(InputClassId::kInvalidRuleFirst) + k);
  throw std::logic_error(std::string("input_space: rule ") + rule_info(rule).field + "/" + rule_info(rule).rule +
                         " is not one a generated batch breaks");
}

const char* edge_name(int edge) {
  static const char* const kNames[kNumEdges] = {"lo", "lo+1", "hi-1", "hi"};
  return kNames[edge];
}

bool edge_is_legal(const InputClass& row, int edge) {
  if (row.values == ValueSet::kClass) return false;
  if (row.hi_per_input) return true;  // judged against each input's own hi
  const int64_t value = edge == 0 ? row.lo : edge == 1 ? row.lo + 1 : edge == 2 ? row.hi - 1 : row.hi;
  return value >= row.lo && value <= row.hi && in_value_set(row.values, value);
}

}  // namespace qsa::engine
