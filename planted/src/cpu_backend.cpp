// The planted-bug backends (the CPU set); the backends layer registers them, hidden.

#include <memory>

#include "cpu_metadata.hpp"
#include "cpu_step_update.hpp"
#include "qsa/planted/catalog.hpp"

namespace qsa::planted {
namespace {

class PlantedBackend : public Backend {
 public:
  PlantedBackend(Bug bug, Arithmetic arithmetic) : bug_(bug), arithmetic_(arithmetic) {}

  std::string name() const override {
    if (arithmetic_ == Arithmetic::kCanonical) return planted_info(bug_).name;
    return bug_ == Bug::kNoBug ? kUpstreamLikeBackend
                               : std::string(kUpstreamLikeBackend) + "+" + planted_info(bug_).name;
  }

  Status build_metadata(const MetadataInput& input, MetadataOutput* output, Error* error) override {
    return planted::build_metadata(bug_, input, output, error);
  }

  Status step_update(const StepInput& input, StepCaches* caches, StepOutput* output, Error* error) override {
    if (bug_ == Bug::kErrorStateSticks && sticky_) {  // the status word of the rejected call, never reset
      sticky_ = false;
      if (error != nullptr) *error = sticky_error_;
      return Status::kInvalidInput;
    }
    const Status status = planted::step_update(bug_, input, caches, output, error, arithmetic_);
    if (bug_ == Bug::kErrorStateSticks && status == Status::kInvalidInput && error != nullptr) {
      sticky_ = true;
      sticky_error_ = *error;
    }
    return status;
  }

 private:
  Bug bug_;
  Arithmetic arithmetic_;
  bool sticky_ = false;  // bug:error-state-sticks: a rejected call's error waits for the next call
  Error sticky_error_;
};

}  // namespace

std::unique_ptr<Backend> make_planted_backend(Bug bug, Arithmetic arithmetic) {
  return std::make_unique<PlantedBackend>(bug, arithmetic);
}

}  // namespace qsa::planted
