// The planted-bug backends (the CPU set); the backends layer registers them, hidden.

#include <memory>

#include "mutant_metadata.hpp"
#include "mutant_step_update.hpp"
#include "qsa/planted/mutant_catalog.hpp"

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

}  // namespace qsa::mutants
