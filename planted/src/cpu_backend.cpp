// The planted-bug backends (the CPU set); the backends layer registers them, hidden.

#include <cstddef>
#include <memory>
#include <vector>

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
    if (bug_ == Bug::kNormWeightsStagedOnce) return staged_weights_step_update(input, caches, output, error);
    const Status status = planted::step_update(bug_, input, caches, output, error, arithmetic_);
    if (bug_ == Bug::kErrorStateSticks && status == Status::kInvalidInput && error != nullptr) {
      sticky_ = true;
      sticky_error_ = *error;
    }
    if (bug_ == Bug::kStepStatusSticks && status == Status::kOk && output != nullptr) {
      if (output->step_status == StepStatus::kPositionOutOfRange) status_word_ = StepStatus::kPositionOutOfRange;
      output->step_status = status_word_;  // set by a skipped group, never reset
    }
    return status;
  }

 private:
  Bug bug_;
  Arithmetic arithmetic_;
  bool sticky_ = false;  // bug:error-state-sticks: a rejected call's error waits for the next call
  Error sticky_error_;
  StepStatus status_word_ = StepStatus::kOk;  // bug:step-status-sticks
  std::vector<Bf16> staged_w_k_, staged_w_q_;  // bug:norm-weights-staged-once: [the largest D so far]

  // bug:norm-weights-staged-once: a grow-only scratch whose contents are copied only when it grows.
  Status staged_weights_step_update(const StepInput& input, StepCaches* caches, StepOutput* output, Error* error) {
    const StepConfig& config = input.config;
    if (config.w_k.size() > staged_w_k_.size() || config.w_q.size() > staged_w_q_.size()) {
      staged_w_k_ = config.w_k;
      staged_w_q_ = config.w_q;
    }
    StepInput staged = input;
    staged.config.w_k.assign(staged_w_k_.begin(), staged_w_k_.begin() + static_cast<std::ptrdiff_t>(config.w_k.size()));
    staged.config.w_q.assign(staged_w_q_.begin(), staged_w_q_.begin() + static_cast<std::ptrdiff_t>(config.w_q.size()));
    return planted::step_update(Bug::kNoBug, staged, caches, output, error, arithmetic_);
  }
};

}  // namespace

std::unique_ptr<Backend> make_planted_backend(Bug bug, Arithmetic arithmetic) {
  return std::make_unique<PlantedBackend>(bug, arithmetic);
}

}  // namespace qsa::planted
