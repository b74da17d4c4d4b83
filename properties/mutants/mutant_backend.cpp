// The planted-bug backends and their (hidden) registration.

#include <memory>

#include "mutants/mutant_catalog.hpp"
#include "mutants/mutant_metadata.hpp"
#include "mutants/mutant_step_update.hpp"

namespace qsa::mutants {
namespace {

class MutantBackend : public Backend {
 public:
  MutantBackend(Bug bug, Arithmetic arithmetic) : bug_(bug), arithmetic_(arithmetic) {}

  std::string name() const override {
    if (arithmetic_ == Arithmetic::kCanonical) return mutant_info(bug_).name;
    return bug_ == Bug::kNone ? kUpstreamLikeBackend : std::string(kUpstreamLikeBackend) + "+" + mutant_info(bug_).name;
  }

  Status build_metadata(const MetadataInput& input, MetadataOutput* output, Error* error) override {
    return mutants::build_metadata(bug_, input, output, error);
  }

  Status step_update(const StepInput& input, StepCaches* caches, StepOutput* output, Error* error) override {
    return mutants::step_update(bug_, input, caches, output, error, arithmetic_);
  }

 private:
  Bug bug_;
  Arithmetic arithmetic_;
};

}  // namespace

std::unique_ptr<Backend> make_mutant_backend(Bug bug, Arithmetic arithmetic) {
  return std::make_unique<MutantBackend>(bug, arithmetic);
}

void register_mutant_backends(qsa::BackendRegistry& registry) {
  for (const MutantInfo& info : mutant_catalog())
    registry.add(
        info.name, info.description, [bug = info.bug] { return make_mutant_backend(bug); }, /*hidden=*/true);
  registry.add(
      kUpstreamLikeBackend,
      "test-only: the reference with upstream-like arithmetic (approximate rsqrt, bf16-rounded RoPE products, "
      "tree-ordered pooling); passes only in the row-ulp tolerance mode",
      [] { return make_mutant_backend(Bug::kNone, Arithmetic::kUpstreamLike); }, /*hidden=*/true);
}

}  // namespace qsa::mutants
