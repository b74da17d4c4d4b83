#pragma once
// The metadata builder of SPEC 2, re-implemented with a planted-bug switch. With Bug::kNoBug it is
// bitwise equal to qsa::reference::build_metadata (the control test proves it on the hand scenario).

#include "qsa/planted/catalog.hpp"
#include "qsa/status.hpp"
#include "qsa/types.hpp"

namespace qsa::planted {

/// Entry (row, col) of a block table; kBlockTableRowMajor reads dense row-major storage instead,
/// kMissingBlockAsBlockZero turns a negative entry into block 0.
int32_t table_entry(Bug bug, const BlockTable& table, int64_t row, int64_t col);

/// qsa::reference::build_metadata with `bug` planted. Validates first with qsa::validate().
[[nodiscard]] Status build_metadata(Bug bug, const MetadataInput& input, MetadataOutput* output, Error* error);

}  // namespace qsa::planted
