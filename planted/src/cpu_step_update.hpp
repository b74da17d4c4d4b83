#pragma once
// The step update of SPEC 5, re-implemented with a planted-bug switch. It validates with
// qsa::validate_step(), builds its metadata with the mutated builder (a kernel consumes its own
// metadata, so a metadata bug reaches the caches) and computes with the mutated numerics. With
// Bug::kNoBug it is bitwise equal to qsa::reference::step_update.

#include "qsa/planted/catalog.hpp"
#include "qsa/status.hpp"
#include "qsa/step_types.hpp"

namespace qsa::planted {

/// qsa::reference::step_update with `bug` planted. Writes q_out into output->q_out when it is
/// already sized for the step (rows a bug skips keep what the caller put there), as a kernel would.
[[nodiscard]] Status step_update(Bug bug, const StepInput& input, StepCaches* caches, StepOutput* output, Error* error,
                                 Arithmetic arithmetic = Arithmetic::kCanonical);

}  // namespace qsa::planted
