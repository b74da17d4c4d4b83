#pragma once
// The interface every implementation plugs into (the reference, our CUDA kernels, third-party
// kernels). The registry that selects one by name lives in the backends layer
// (backends/include/qsa/backends/registry.hpp).

#include <optional>
#include <string>

#include "qsa/declared_limits.hpp"
#include "qsa/status.hpp"
#include "qsa/types.hpp"

namespace qsa {

struct StepInput;   // qsa/step_types.hpp
struct StepCaches;  // qsa/step_types.hpp
struct StepOutput;  // qsa/step_types.hpp

class Backend {
 public:
  virtual ~Backend() = default;

  virtual std::string name() const = 0;

  /// kOk when the backend can run on this machine; otherwise kUnavailable with the reason
  /// (e.g. "no CUDA device: cudaGetDeviceCount returned 100").
  virtual Status probe(std::string* reason) const;

  /// The per-step metadata of SPEC 2. `output` arrives sized and poisoned by
  /// make_poisoned_metadata_output(); a backend writes every element. Invalid input: the
  /// backend calls qsa::validate() first and returns its status and error unchanged.
  [[nodiscard]] virtual Status build_metadata(const MetadataInput& input, MetadataOutput* output, Error* error) = 0;

  /// The step update of SPEC 5: mutates `caches` in place and writes `output`. A backend that
  /// does not provide it returns kNotImplemented (the default).
  [[nodiscard]] virtual Status step_update(const StepInput& input, StepCaches* caches, StepOutput* output,
                                           Error* error);

  /// What a kernel that declares its limits (a plugin's or worker's capabilities and constraints,
  /// docs/production-kernels.md) would decline in this input, or nullopt: campaigns generate
  /// another input instead and list what was excluded; between valid steps a scenario runner also
  /// sends a call this excludes, which must come back declined (is_declined). The built-in
  /// backends exclude nothing (of the planted bugs, bug:decline-word-sticks declares no MRoPE).
  virtual std::optional<std::string> excludes(const MetadataInput& input) const;
  virtual std::optional<std::string> excludes(const StepInput& input, const StepCaches& caches) const;
  /// The same for every step of a scenario of this geometry, before any step is generated.
  virtual std::optional<std::string> excludes(const StepGeometry& geometry) const;

  /// Whether this backend runs a kernel built outside qsacheck (a plugin's, a worker's): the scenario
  /// runner then compares both whole caches after every step, so a write outside the rows a step
  /// names (SPEC 7.5) is found at that step even when a later step rewrites the row
  /// (docs/campaign-time.md). The built-in backends are compared every few steps.
  virtual bool outside_kernel() const { return false; }

  /// The deviations from the contract this backend declares (declared_limits.hpp); the engine
  /// applies them to every comparison. Only outside kernels declare any.
  virtual Deviations deviations() const;
};

/// The rule a backend reports, with kNotImplemented, for an input outside its declared
/// capabilities (a plugin's): callers leave that input out and report it as not run (exit 3).
inline constexpr const char* kMissingCapability = "missing-capability";
inline bool is_declined(Status status, const Error& error) {
  return status == Status::kNotImplemented && error.rule == kMissingCapability;
}

/// The field of the error a backend in another process reports, with kInternalError, when that
/// process crashed, exited, hung past its timeout or broke the protocol (rule: how). The engine
/// reports it as a finding of its own kind ("step-update-" + rule), not as a wrong answer.
inline constexpr const char* kWorkerFaultField = "worker";
inline bool is_worker_fault(Status status, const Error& error) {
  return status == Status::kInternalError && error.field == kWorkerFaultField;
}

}  // namespace qsa
