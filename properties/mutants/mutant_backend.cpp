// The planted-bug backends and their (hidden) registration.

#include <memory>

#include "mutants/mutant_catalog.hpp"
#include "mutants/mutant_metadata.hpp"
#include "mutants/mutant_step_update.hpp"

namespace qsa::mutants {
namespace {

class MutantBackend : public Backend {
 public:
  explicit MutantBackend(Bug bug) : bug_(bug) {}

  std::string name() const override { return mutant_info(bug_).name; }

  Status build_metadata(const MetadataInput& input, MetadataOutput* output, Error* error) override {
    return mutants::build_metadata(bug_, input, output, error);
  }

  Status step_update(const StepInput& input, StepCaches* caches, StepOutput* output, Error* error) override {
    return mutants::step_update(bug_, input, caches, output, error);
  }

 private:
  Bug bug_;
};

}  // namespace

std::unique_ptr<Backend> make_mutant_backend(Bug bug) { return std::make_unique<MutantBackend>(bug); }

void register_mutant_backends(qsa::BackendRegistry& registry) {
  for (const MutantInfo& info : mutant_catalog())
    registry.add(
        info.name, info.description, [bug = info.bug] { return make_mutant_backend(bug); }, /*hidden=*/true);
}

}  // namespace qsa::mutants
