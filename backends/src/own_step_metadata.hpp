#pragma once
// A kernel that declares STEP_USES_METADATA (a plugin's feature bit, a worker's
// "step_uses_metadata") reads its own metadata in its step update, as vLLM's pre-indexer reads the
// metadata kernel's slots. Both adapters judge that metadata against the contract here before the
// step runs, so a step can never pass on metadata nothing checked.

#include <string>

#include "qsa/declared_limits.hpp"
#include "qsa/status.hpp"
#include "qsa/types.hpp"

namespace qsa::backends {

/// kOk when `got` (the kernel's metadata of `group`, its declared `deviations` applied here) equals
/// the reference's; else kInternalError with rule "step-metadata-differs" naming `name`, the kind
/// and the first difference.
Status check_own_step_metadata(const std::string& name, const MetadataInput& group, MetadataOutput got,
                               const Deviations& deviations, Error* error);

}  // namespace qsa::backends
