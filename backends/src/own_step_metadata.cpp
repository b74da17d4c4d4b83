#include "own_step_metadata.hpp"

#include "qsa/reference/metadata.hpp"
#include "qsa/traces/compare.hpp"

namespace qsa::backends {

Status check_own_step_metadata(const std::string& name, const MetadataInput& group, MetadataOutput got,
                               const Deviations& deviations, Error* error) {
  apply_deviations(deviations, &got);
  MetadataOutput expected;
  if (Status s = reference::build_metadata(group, &expected, error); s != Status::kOk) return s;
  if (auto m = traces::compare_metadata(group, expected, got)) {
    *error = Error{"plugin", -1, "step-metadata-differs",
                   name + ": the " + to_string(group.cache.kind) +
                       " metadata given to its step update differs from the contract: " + m->to_string()};
    return Status::kInternalError;
  }
  return Status::kOk;
}

}  // namespace qsa::backends
