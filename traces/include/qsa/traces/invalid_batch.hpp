#pragma once
// Random metadata inputs that break one validation rule of SPEC 1.4 (a generated valid batch with
// one field corrupted), for `qsacheck check`: a backend must answer the reference's error (field,
// index, rule) and write nothing. The rules are broken through a Choice, so the property suite's
// RapidCheck generator (properties/generators/invalid_inputs.cpp) breaks the same ones.

#include <optional>

#include "qsa/input_fields.hpp"
#include "qsa/step_types.hpp"
#include "qsa/traces/batch_generator.hpp"
#include "qsa/traces/choice.hpp"
#include "qsa/traces/rng.hpp"

namespace qsa::traces {

/// The rules of SPEC 1.4 after the kind's (every field rule of 1.4's list), in validate()'s order:
/// the breakable rows of reference's rule table (qsa/input_fields.hpp), rule k being
/// qsa::breakable_rule(k). The campaign cycles them by index, so their order is part of its content.
using qsa::kNumBreakableRules;
static_assert(kNumBreakableRules == 16, "a new breakable rule changes the campaign's content version");

/// Breaks rule `rule` (0 <= rule < kNumBreakableRules, validate()'s order) in a valid `input`,
/// touching nothing an earlier rule checks. False, with `input` unchanged, when the input lacks what
/// the rule needs (a ring batch has no storage_block_size) or validate() would still accept it.
bool break_rule(Choice& choice, int rule, MetadataInput* input);

/// Breaks one rule of SPEC 1.4 in a valid `input` (every rule reachable, one drawn; a rule the
/// input cannot break gives way to the next in validate()'s order), touching nothing an earlier rule
/// checks. True when validate() now rejects it.
bool break_one_rule(Choice& choice, MetadataInput* input);

/// Breaks, in a valid step input, the `pick`-th (mod their count) of the step rules of reference's
/// rule table that a step input can break by one field (eps, head_dim, num_heads, the shapes of
/// keys, queries and w_k, positions, a padding row's common slot, qsl[0], a seq_len), skipping
/// those the input lacks what they need for. Returns the rule broken; Rule::kCount, with `input`
/// unchanged, when none applies. The runner calls a backend with it between valid steps (SPEC 1.4:
/// nothing is written on failure, and the instance must answer the next step as a fresh one).
qsa::Rule break_step_rule(uint64_t pick, StepInput* input);

/// One input that qsa::validate() rejects; `shape` is the shape of the valid batch it came from.
/// With `rule`, that rule is the one broken (unless 16 fresh batches all lack what it needs).
GeneratedBatch random_invalid_metadata_input(Rng& rng, std::optional<int> rule = std::nullopt);

}  // namespace qsa::traces
