#pragma once
// The reference step update (SPEC 5): group compression into the compressed cache, the ring
// commit and the Q path, in the canonical arithmetic of SPEC 6. Plain loops; the oracle.

#include <vector>

#include "qsa/status.hpp"
#include "qsa/step_types.hpp"

namespace qsa::reference {

/// A pooled group before the norm (the bf16 mean of its C members), for debugging and tests.
struct PooledGroup {
  int64_t request = 0;
  int64_t group = 0;        // g: the group of positions gC .. gC + C - 1
  std::vector<Bf16> value;  // [D]
};

/// Runs one step for all requests.
///
/// Validates first (qsa::validate_step); on failure returns kInvalidInput and changes nothing.
/// Otherwise: (A) every group closing in a chunk whose compressed slot is valid and inside the
/// cache is pooled from this step's keys and the ring *as it was before the step*, normed, rotated
/// at the group position and stored; (B) then each chunk's last min(q, R) rows are committed to
/// the ring (key bits, and (t, h, w) when the ring caches positions); (Q) every row's queries are
/// normed, rotated and stored in `output->q_out`. A group whose position read from the ring tail
/// lies outside [0, max_position) is skipped and `output->step_status` says so.
/// `pooled` (optional) receives every computed group's pooled value in computation order.
/// Deterministic; writes no slot the metadata does not name.
[[nodiscard]] Status step_update(const StepInput& input, StepCaches* caches, StepOutput* output, Error* error,
                                 std::vector<PooledGroup>* pooled = nullptr);

}  // namespace qsa::reference
