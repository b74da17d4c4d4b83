// The planted-bug backends (the CPU set); the backends layer registers them, hidden.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cpu_metadata.hpp"
#include "cpu_step_update.hpp"
#include "qsa/planted/catalog.hpp"
#include "qsa/validate.hpp"

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
    if (bug_ == Bug::kDeclineWordSticks) return text_model_step_update(input, caches, output, error);
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

  std::optional<std::string> excludes(const StepGeometry& geometry) const override {
    if (bug_ != Bug::kDeclineWordSticks) return std::nullopt;
    return text_model_lacks(geometry.mrope, geometry.ring_positions);
  }
  std::optional<std::string> excludes(const StepInput& input, const StepCaches&) const override {
    return bug_ == Bug::kDeclineWordSticks ? text_model_lacks(input) : std::nullopt;
  }
  std::optional<std::string> excludes(const MetadataInput&) const override { return std::nullopt; }

 private:
  Bug bug_;
  Arithmetic arithmetic_;
  bool sticky_ = false;  // bug:error-state-sticks: a rejected call's error waits for the next call
  Error sticky_error_;
  StepStatus status_word_ = StepStatus::kOk;  // bug:step-status-sticks
  std::vector<Bf16> staged_w_k_, staged_w_q_;  // bug:norm-weights-staged-once: [the largest D so far]
  bool error_word_ = false;  // bug:decline-word-sticks: set by a declined call, cleared after a good step

  // bug:decline-word-sticks declares limits, as a plugin's capabilities would: no MRoPE, no ring
  // positions (a text-model kernel). A campaign then draws only scenarios without them, and the
  // runner's calls with them are sent to be declined (docs/planted-bugs.md, note 18).
  static std::optional<std::string> text_model_lacks(bool mrope, bool ring_positions) {
    if (mrope) return std::string("MRoPE (it declares a text-model kernel: 1-axis positions only)");
    if (ring_positions) return std::string("ring positions (it declares a text-model kernel)");
    return std::nullopt;
  }
  static std::optional<std::string> text_model_lacks(const StepInput& input) {
    return text_model_lacks(input.position_axes == 3 || input.config.mrope_sections.has_value(),
                            input.config.ring_positions);
  }
  Status text_model_step_update(const StepInput& input, StepCaches* caches, StepOutput* output, Error* error) {
    if (Status s = validate_step(input, *caches, error); s != Status::kOk) return s;
    if (auto missing = text_model_lacks(input)) {
      error_word_ = true;  // the capability check's error word, for the host to read back
      if (error != nullptr) *error = Error{"backend", -1, kMissingCapability, name() + " lacks " + *missing};
      return Status::kNotImplemented;
    }
    const Status status = planted::step_update(Bug::kNoBug, input, caches, output, error, arithmetic_);
    if (status == Status::kOk && output != nullptr && error_word_) {
      output->step_status = StepStatus::kPositionOutOfRange;  // the word read as this step's status
      error_word_ = false;
    }
    return status;
  }

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
