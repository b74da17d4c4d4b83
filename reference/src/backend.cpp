#include "qsa/backend_interface.hpp"

namespace qsa {

Status Backend::probe(std::string* /*reason*/) const { return Status::kOk; }

Status Backend::step_update(const StepInput& /*input*/, StepCaches* /*caches*/, StepOutput* /*output*/, Error* error) {
  if (error != nullptr)
    *error = Error{"backend", -1, "not-implemented", name() + " does not implement the step update"};
  return Status::kNotImplemented;
}

std::optional<std::string> Backend::excludes(const MetadataInput& /*input*/) const { return std::nullopt; }

std::optional<std::string> Backend::excludes(const StepInput& /*input*/, const StepCaches& /*caches*/) const {
  return std::nullopt;
}

std::optional<std::string> Backend::excludes(const StepGeometry& /*geometry*/) const { return std::nullopt; }

Deviations Backend::deviations() const { return {}; }

}  // namespace qsa
