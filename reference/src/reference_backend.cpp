#include "qsa/reference/reference_backend.hpp"

#include "qsa/reference/metadata.hpp"
#include "qsa/reference/step_update.hpp"

namespace qsa::reference {

Status ReferenceBackend::build_metadata(const MetadataInput& input, MetadataOutput* output, Error* error) {
  return reference::build_metadata(input, output, error);
}

Status ReferenceBackend::step_update(const StepInput& input, StepCaches* caches, StepOutput* output, Error* error) {
  return reference::step_update(input, caches, output, error);
}

}  // namespace qsa::reference
