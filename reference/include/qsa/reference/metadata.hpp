#pragma once
// The reference metadata builder (SPEC 2): plain scalar loops, the oracle for every backend.

#include "qsa/status.hpp"
#include "qsa/types.hpp"

namespace qsa::reference {

/// Builds token_to_req, logical_positions, visible_blocks, slot_mapping, k_work_metadata and the
/// batch split for one cache group.
///
/// Validates first (qsa::validate); on failure returns kInvalidInput and leaves *output untouched.
/// On success every element of *output is written: vectors are resized to N (and K·2 for k-work).
/// Deterministic. Example (SPEC 8): qsl = {0, 2, 4}, seq_lens = {2, 5}, N = 6 gives
/// token_to_req {0, 0, 1, 1, 0, 0} and logical_positions {0, 1, 3, 4, -1, -1}.
[[nodiscard]] Status build_metadata(const MetadataInput& input, MetadataOutput* output, Error* error);

/// The batch split alone (SPEC 2, "Batch split"); the input must be valid.
BatchSplit split_decodes_and_prefills(const Batch& batch);

}  // namespace qsa::reference
