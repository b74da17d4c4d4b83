#pragma once
// The reference as a backend: "reference".

#include "qsa/backend_interface.hpp"

namespace qsa::reference {

class ReferenceBackend : public Backend {
 public:
  std::string name() const override { return "reference"; }
  [[nodiscard]] Status build_metadata(const MetadataInput& input, MetadataOutput* output, Error* error) override;
  [[nodiscard]] Status step_update(const StepInput& input, StepCaches* caches, StepOutput* output,
                                   Error* error) override;
};

}  // namespace qsa::reference
