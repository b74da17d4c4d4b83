#pragma once
// The inputs of SPEC 1.1, 1.2 and 5 and the validation rules of SPEC 1.4, as data: one table of
// rules (field, rule identifier, limit) that validate(), validate_step(), the invalid-batch
// generator (traces/invalid_batch.hpp) and the input-space inventory (traces/input_space.hpp) all
// iterate, and one table of input fields with each field's domain per row role (which values are
// legal on a live row, a padding row, a rejected draft, ... and whether they may change an output).
// The fuzz decoder (fuzz/metadata_decoder.cpp) keeps its own, independent reading of SPEC 1.4 on
// purpose: it checks this table rather than sharing it.

#include <cstdint>
#include <string>
#include <vector>

#include "qsa/status.hpp"

namespace qsa {

/// Every rule validate() and validate_step() report, in the order they are checked (SPEC 1.4; the
/// rules docs/decisions.md adds are marked in the table). The error strings come from rule_info().
enum class Rule : int {
  // SPEC 1.4 step 1: the kind and its parameters, then the decode threshold
  kKindUnknown,
  kCompressRatioOutOfRange,
  kStorageBlockSizeOutOfRange,
  kRingCapacityOutOfRange,
  kRequestCapacityOutOfRange,
  kReorderBatchThresholdOutOfRange,
  // steps 2-6: the batch
  kQueryStartLocTooShort,
  kQueryStartLocNonzeroStart,
  kQueryStartLocDecreasing,
  kQueryStartLocOutOfRange,
  kNumActualTokensOutOfRange,
  kSeqLensWrongLength,
  kSeqLensShorterThanQuery,
  kSeqLensOutOfRange,
  kCommonSlotMappingTooShort,
  kCommonSlotMappingPaddingNotNegative,
  kBlockTableTooFewRows,
  kBlockTableMalformed,
  // the step update's checks (SPEC 1.4, after the metadata of both groups)
  kHeadDimOutOfRange,
  kRotaryDimOutOfRange,
  kMropeSectionsOutOfRange,
  kMropeSectionsWrongSum,
  kNumHeadsOutOfRange,
  kEpsOutOfRange,
  kKeysWrongShape,
  kQueriesWrongShape,
  kPositionsWrongShape,
  kRingWrongShape,
  kCompressedWrongShape,
  kWKWrongShape,
  kWQWrongShape,
  kCosSinWrongShape,
  kPositionsOutOfRange,
  kSlotsDuplicate,
  kRingBlockTableSharedBlock,
  kCount
};

/// Which input a rule judges.
enum class RulePart {
  kMetadata,  // validate(): a metadata input (and each group of a step)
  kStep,      // validate_step() only
};

/// One row of the rule table.
struct RuleInfo {
  Rule which;
  const char* field;   // Error::field
  const char* rule;    // Error::rule
  const char* limit;   // what the rule demands, in the SPEC's words
  const char* clause;  // "1.4", or the docs/decisions.md row for a rule we added
  RulePart part;
  /// A valid generated metadata batch can be made to break this rule alone (traces/invalid_batch):
  /// the field rules of SPEC 1.4's metadata list. Not the kind (an enum cannot hold an unknown
  /// kind) nor `malformed` (the table type's own storage check).
  bool breakable;
};

inline constexpr int kNumRules = static_cast<int>(Rule::kCount);

// clang-format off
/// [kNumRules] rows, row i describing Rule i.
inline constexpr RuleInfo kRuleTable[] = {
  {Rule::kKindUnknown, "kind", "unknown-kind", "compressed, ring or passthrough", "1.4", RulePart::kMetadata, false},
  {Rule::kCompressRatioOutOfRange, "compress_ratio", "out-of-range",
   "compressed: 2 <= C <= 1024 (required); ring: 1 <= Cb <= 1024; passthrough: omitted or 1", "1.2, 1.3, 1.4",
   RulePart::kMetadata, true},
  {Rule::kStorageBlockSizeOutOfRange, "storage_block_size", "out-of-range", "1 <= S <= 2^20 (compressed)",
   "1.2, 1.3, 1.4", RulePart::kMetadata, true},
  {Rule::kRingCapacityOutOfRange, "ring_capacity", "out-of-range", "1 <= R <= 2^20 (ring)", "1.2, 1.3, 1.4",
   RulePart::kMetadata, true},
  {Rule::kRequestCapacityOutOfRange, "request_capacity", "out-of-range", "NR <= capacity <= 2^20 (compressed)",
   "1.2, 1.3, 1.4", RulePart::kMetadata, true},
  {Rule::kReorderBatchThresholdOutOfRange, "reorder_batch_threshold", "out-of-range", "1 <= T <= 2^24", "1.1, 1.4",
   RulePart::kMetadata, true},
  {Rule::kQueryStartLocTooShort, "query_start_loc", "too-short", "NR + 1 >= 2 entries", "1.4", RulePart::kMetadata,
   true},
  {Rule::kQueryStartLocNonzeroStart, "query_start_loc", "nonzero-start", "qsl[0] = 0", "1.4", RulePart::kMetadata,
   true},
  {Rule::kQueryStartLocDecreasing, "query_start_loc", "decreasing", "qsl[i] >= qsl[i-1]", "1.4", RulePart::kMetadata,
   true},
  {Rule::kQueryStartLocOutOfRange, "query_start_loc", "out-of-range", "NR <= 2^20; entries fit int32", "1.3, 1.4",
   RulePart::kMetadata, true},
  {Rule::kNumActualTokensOutOfRange, "num_actual_tokens", "out-of-range", "M <= N <= 2^24", "1.3, 1.4",
   RulePart::kMetadata, true},
  {Rule::kSeqLensWrongLength, "seq_lens", "wrong-length", "NR entries", "1.4", RulePart::kMetadata, true},
  {Rule::kSeqLensShorterThanQuery, "seq_lens", "shorter-than-query", "e_j >= q_j", "1.4", RulePart::kMetadata, true},
  {Rule::kSeqLensOutOfRange, "seq_lens", "out-of-range", "e_j fits int32", "1.3, 1.4", RulePart::kMetadata, true},
  {Rule::kCommonSlotMappingTooShort, "common_slot_mapping", "too-short", ">= N entries (compressed, passthrough)",
   "1.4", RulePart::kMetadata, true},
  {Rule::kCommonSlotMappingPaddingNotNegative, "common_slot_mapping", "padding-not-negative",
   "negative on every padding row t in [M, N)", "1.4", RulePart::kMetadata, true},
  {Rule::kBlockTableTooFewRows, "block_table", "too-few-rows", ">= NR rows", "1.4", RulePart::kMetadata, true},
  {Rule::kBlockTableMalformed, "block_table", "malformed", "strides and storage cover rows x W",
   "docs/decisions.md", RulePart::kMetadata, false},
  {Rule::kHeadDimOutOfRange, "head_dim", "out-of-range", "D a power of two, 32 <= D <= 512", "1.4, 0",
   RulePart::kStep, false},
  {Rule::kRotaryDimOutOfRange, "rotary_dim", "out-of-range", "rd even, 2 <= rd <= D", "1.4, 0", RulePart::kStep,
   false},
  {Rule::kMropeSectionsOutOfRange, "mrope_sections", "out-of-range", "every section >= 0", "1.4", RulePart::kStep,
   false},
  {Rule::kMropeSectionsWrongSum, "mrope_sections", "wrong-sum", "sec_t + sec_h + sec_w = hp", "1.4",
   RulePart::kStep, false},
  {Rule::kNumHeadsOutOfRange, "num_heads", "out-of-range", "1 <= HQ <= 1024", "1.4, docs/decisions.md",
   RulePart::kStep, false},
  {Rule::kEpsOutOfRange, "eps", "out-of-range", "finite, > 0", "1.4", RulePart::kStep, false},
  {Rule::kKeysWrongShape, "keys", "wrong-shape", "[N, D]", "1.4, 5", RulePart::kStep, false},
  {Rule::kQueriesWrongShape, "queries", "wrong-shape", "[N, HQ, D]", "1.4, 5", RulePart::kStep, false},
  {Rule::kPositionsWrongShape, "positions", "wrong-shape", "[N] or [3, N]", "1.4, 5", RulePart::kStep, false},
  {Rule::kRingWrongShape, "ring", "wrong-shape", "R rows of D (or P + 12) bf16 per block, strides cover them",
   "1.4, 4", RulePart::kStep, false},
  {Rule::kCompressedWrongShape, "compressed", "wrong-shape",
   "S rows of D store-dtype elements per block, strides cover them", "1.4, 4", RulePart::kStep, false},
  {Rule::kWKWrongShape, "w_k", "wrong-shape", "[D]", "1.4, 5", RulePart::kStep, false},
  {Rule::kWQWrongShape, "w_q", "wrong-shape", "[D]", "1.4, 5", RulePart::kStep, false},
  {Rule::kCosSinWrongShape, "cos_sin", "wrong-shape", "[max_position, rd], 1 <= max_position <= 2^31 - 1", "1.4, 5",
   RulePart::kStep, false},
  {Rule::kPositionsOutOfRange, "positions", "out-of-range",
   "every given position and every text-model group position gC in [0, max_position)", "1.4", RulePart::kStep,
   false},
  {Rule::kSlotsDuplicate, "slots", "duplicate", "no two rows write one compressed or one ring slot", "1.4",
   RulePart::kStep, false},
  {Rule::kRingBlockTableSharedBlock, "ring_block_table", "shared-block",
   "no two requests with rows share a ring block in one step", "docs/decisions.md", RulePart::kStep, false},
};
// clang-format on

constexpr const RuleInfo& rule_info(Rule rule) { return kRuleTable[static_cast<int>(rule)]; }

constexpr bool rule_table_is_in_order() {
  int i = 0;
  for (const RuleInfo& row : kRuleTable)
    if (static_cast<int>(row.which) != i++) return false;
  return i == kNumRules;
}
static_assert(rule_table_is_in_order(), "kRuleTable lists Rule's values in order, one row each");

/// The rules a generated metadata batch can be made to break (RuleInfo::breakable), in
/// validate()'s order; the invalid-batch generator's rule k is breakable_rule(k).
constexpr int count_breakable_rules() {
  int n = 0;
  for (const RuleInfo& row : kRuleTable) n += row.breakable ? 1 : 0;
  return n;
}
inline constexpr int kNumBreakableRules = count_breakable_rules();
constexpr Rule breakable_rule(int k) {
  for (const RuleInfo& row : kRuleTable)
    if (row.breakable && k-- == 0) return row.which;
  return Rule::kCount;
}

/// Fills *error from the rule's row (field and rule identifier) and returns kInvalidInput.
Status invalid(Error* error, Rule rule, int64_t index, std::string message);

/// The rule an error names (field and rule identifier), or Rule::kCount when none does.
Rule rule_of(const Error& error);

// ---- input fields and row roles ------------------------------------------------------------

/// The roles a row, request or column of a step plays. A field's legal values, and whether they
/// may change any output or cache byte, differ per role: a padding row's key must not matter, its
/// query does (q_out covers every row).
enum class RowRole : int {
  kLive,               // a mapped row t < M of a request with rows (committed or accepted)
  kPadding,            // a row t in [M, N): CUDA-graph padding (buffers reused: stale values)
  kRejectedDraft,      // a live row whose key the next step rejects (SPEC 7)
  kZeroLengthRequest,  // a request j < NR with q_j = 0 (padded requests included)
  kRequestPastNr,      // a block-table row j >= NR (tables sized for max_num_seqs)
  kColumnPastW,        // storage past the W used columns of a block-table row (a column slice)
  kCount
};
inline constexpr int kNumRowRoles = static_cast<int>(RowRole::kCount);
const char* to_string(RowRole role);  // "live", "padding", "rejected_draft", ...

/// How a field's elements on one role take part in the step.
enum class Use {
  kNone,     // the role has no element of this field
  kMatters,  // the value decides an output or a cache byte
  kInert,    // any legal value: no output and no cache byte may depend on it (SPEC 7.4, 7.5)
};
const char* to_string(Use use);  // "-", "matters", "inert"

/// A field's domain on one role.
struct RoleDomain {
  Use use = Use::kNone;
  const char* legal = "";  // the legal values there, in the SPEC's words
};

/// One input of SPEC 1.1, 1.2 or 5.
struct InputField {
  const char* name;                // as Error::field names it (the rule table's `field`)
  const char* spec_name;           // how docs/spec.md names it (1.1's table: its first cell; 5: a phrase of
                                   // the inputs paragraph)
  const char* clause;              // "1.1", "1.2" or "5"
  const char* type;                // type and shape
  RoleDomain roles[kNumRowRoles];  // indexed by RowRole
};

/// Every input of SPEC 1.1, 1.2 and 5, in SPEC order. Roles in RowRole's order: live, padding,
/// rejected draft, zero-length request, request past NR, column past W; `{}`: the role has none.
inline constexpr InputField kFieldTable[] = {
    // ---- SPEC 1.1: the batch
    {"query_start_loc",
     "query_start_loc",
     "1.1",
     "int32 [NR + 1]",
     {{Use::kMatters, "qsl[0] = 0, non-decreasing, fits int32"},
      {},
      {},
      {Use::kMatters, "qsl[j+1] = qsl[j] (anywhere: the middle, the start, the padded tail)"},
      {},
      {}}},
    {"seq_lens",
     "seq_lens",
     "1.1",
     "int32 [NR]",
     {{Use::kMatters, "q_j <= e_j <= 2^31 - 1"},
      {},
      {},
      {Use::kMatters, "0 <= e_j <= 2^31 - 1 (max_seq_len counts it; padded requests have 0)"},
      {},
      {}}},
    {"num_actual_tokens", "num_actual_tokens", "1.1", "int", {{Use::kMatters, "M <= N <= 2^24"}, {}, {}, {}, {}, {}}},
    {"common_slot_mapping",
     "common_slot_mapping",
     "1.1",
     "int64 [>= N]",
     {{Use::kMatters, "any int64; negative = no slot (compressed: a closing row's slot; passthrough: copied)"},
      {Use::kInert, "any negative int64 (SPEC 1.4 rule 5); entries past N: any int64, inert"},
      {Use::kMatters, "any int64 (passthrough copies it; a closing draft's slot is written this step)"},
      {},
      {},
      {}}},
    {"block_table",
     "block_table",
     "1.1",
     "int32 [>= NR, W], any strides",
     {{Use::kMatters, "any int32; negative = no block; past the cache: skipped"},
      {},
      {},
      {Use::kInert, "any int32 (a request without rows gets no slot and no k-work)"},
      {Use::kInert, "any int32 (rows past NR: the table is sized for max_num_seqs)"},
      {Use::kInert, "any int32 (a column slice: the parent table's other columns)"}}},
    {"reorder_batch_threshold", "T", "1.1", "int", {{Use::kMatters, "1 <= T <= 2^24"}, {}, {}, {}, {}, {}}},
    // ---- SPEC 1.2: the cache kind and its parameters
    {"kind", "kind", "1.2", "compressed | ring | passthrough", {{Use::kMatters, "one of the three"}}},
    {"compress_ratio",
     "compress_ratio",
     "1.2",
     "int, optional",
     {{Use::kMatters, "compressed 2 <= C <= 1024; ring 1 <= Cb <= 1024 or omitted; passthrough omitted or 1"}}},
    {"storage_block_size", "S", "1.2", "int", {{Use::kMatters, "1 <= S <= 2^20"}}},
    {"ring_capacity", "R", "1.2", "int", {{Use::kMatters, "1 <= R <= 2^20"}}},
    {"request_capacity",
     "request_capacity",
     "1.2",
     "int, optional",
     {{Use::kMatters, "NR <= capacity <= 2^20 or omitted"}}},
    // ---- SPEC 5: the step update's inputs besides the two groups' metadata
    {"ring_block_table",
     "its block table",
     "5",
     "int32 [>= NR, W], any strides (ring group)",
     {{Use::kMatters, "column 0: any int32; negative or past the cache reads zeros, no commit"},
      {},
      {},
      {Use::kInert, "any int32, may repeat another request's block"},
      {Use::kInert, "any int32"},
      {Use::kInert, "any int32"}}},
    {"keys",
     "key rows `k`",
     "5",
     "bf16 [N, D]",
     {{Use::kMatters, "any bf16 (NaN, infinities, subnormals, -0)"},
      {Use::kInert, "any bf16: no cache write"},
      {Use::kMatters, "any bf16 (written this step, rewritten by the step that commits the position)"},
      {},
      {},
      {}}},
    {"queries",
     "query rows `q`",
     "5",
     "bf16 [N, HQ, D]",
     {{Use::kMatters, "any bf16"},
      {Use::kMatters, "any bf16: q_out covers every row"},
      {Use::kMatters, "any bf16"},
      {},
      {},
      {}}},
    {"positions",
     "positions",
     "5",
     "int64 [N] or [3, N]",
     {{Use::kMatters, "[0, max_position), every axis"},
      {Use::kMatters, "[0, max_position) (validated; q_out ropes padding rows too)"},
      {Use::kMatters, "[0, max_position)"},
      {},
      {},
      {}}},
    {"cos_sin",
     "the RoPE table `cos_sin`",
     "5",
     "bf16 [max_position, rd]",
     {{Use::kMatters, "any bf16; 1 <= max_position <= 2^31 - 1"}}},
    {"w_k", "`w_k`", "5", "bf16 [D]", {{Use::kMatters, "any bf16"}}},
    {"w_q", "`w_q`", "5", "bf16 [D]", {{Use::kMatters, "any bf16"}}},
    {"eps", "eps", "5", "fp32", {{Use::kMatters, "finite, > 0 (subnormal to the largest finite)"}}},
    {"mrope_sections", "MRoPE sections", "5", "3 ints, optional", {{Use::kMatters, "each >= 0, summing to hp"}}},
    {"ring_positions",
     "whether the ring caches positions",
     "5",
     "bool",
     {{Use::kMatters, "either (MRoPE models cache (t, h, w))"}}},
    {"store_dtype", "the store dtype", "5", "bf16 | fp8 e4m3fn", {{Use::kMatters, "either"}}},
    {"head_dim", "D", "0, 5", "int", {{Use::kMatters, "a power of two, 32 <= D <= 512"}}},
    {"rotary_dim", "rd", "0, 5", "int", {{Use::kMatters, "even, 2 <= rd <= D"}}},
    {"num_heads", "HQ", "0, 5", "int", {{Use::kMatters, "1 <= HQ <= 1024"}}},
    {"ring",
     "ring",
     "4, 5",
     "bf16 cache: blocks of R rows of D (or P + 12) elements",
     {{Use::kMatters, "any bytes (rows before s_j are read; stride padding is never written)"}}},
    {"compressed",
     "compressed",
     "4, 5",
     "bf16 or fp8 cache: blocks of S rows of D elements",
     {{Use::kMatters, "any bytes (only written; stride padding is never written)"}}},
};
inline constexpr int kNumInputFields = static_cast<int>(sizeof(kFieldTable) / sizeof(kFieldTable[0]));

/// The (field, role) pairs other than live where the field has elements: the classes of values
/// that "do not matter" (or matter only for q_out) which the input-space inventory derives.
constexpr int count_role_domains() {
  int n = 0;
  for (const InputField& f : kFieldTable)
    for (int r = 1; r < kNumRowRoles; ++r) n += f.roles[r].use != Use::kNone ? 1 : 0;
  return n;
}
inline constexpr int kNumRoleDomains = count_role_domains();

/// The fields in SPEC order (1.1, 1.2, then 5): kFieldTable.
const std::vector<InputField>& input_fields();
/// The field `name` names, or nullptr.
const InputField* input_field(const std::string& name);
/// The rules of the rule table that judge field `name`, in validate()'s order.
std::vector<Rule> rules_of_field(const std::string& name);

}  // namespace qsa
