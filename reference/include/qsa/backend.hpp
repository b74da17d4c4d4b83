#pragma once
// The interface every implementation plugs into (the reference, our CUDA kernels, third-party
// kernels), and the registry that selects one by name, so every check reaches every backend.

#include <functional>
#include <memory>
#include <string>
#include <vector>

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
};

/// The rule a backend reports, with kNotImplemented, for an input outside its declared
/// capabilities (a plugin's): callers leave that input out and report it as not run (exit 3).
inline constexpr const char* kMissingCapability = "missing-capability";
inline bool is_declined(Status status, const Error& error) {
  return status == Status::kNotImplemented && error.rule == kMissingCapability;
}

using BackendFactory = std::function<std::unique_ptr<Backend>()>;
/// Builds a backend from its whole name (e.g. "plugin:/path/lib.so#variant"). It never returns
/// nullptr for a name with its prefix: a backend that cannot load says why from probe().
using BackendFamilyFactory = std::function<std::unique_ptr<Backend>(const std::string& name)>;

/// Backends by name. The reference is always registered; others register through
/// register_builtin_backends() (traces/backends.hpp) or a test target's own registration.
class BackendRegistry {
 public:
  static BackendRegistry& global();

  /// Adds (or replaces) a backend. `hidden` ones (planted bugs) are left out of default campaigns.
  void add(const std::string& name, const std::string& description, BackendFactory factory, bool hidden = false);
  /// Names that start with `prefix` (e.g. "plugin:") are built by `factory`; they are never listed.
  void add_family(const std::string& prefix, const std::string& description, BackendFamilyFactory factory);
  /// nullptr when the name is unknown.
  std::unique_ptr<Backend> create(const std::string& name) const;
  bool contains(const std::string& name) const;
  /// Names in registration order; hidden ones only when asked for.
  std::vector<std::string> names(bool include_hidden = false) const;
  std::string description(const std::string& name) const;

 private:
  struct Entry {
    std::string name;
    std::string description;
    BackendFactory factory;
    bool hidden;
  };
  struct Family {
    std::string prefix;
    std::string description;
    BackendFamilyFactory factory;
  };
  const Family* family_of(const std::string& name) const;

  std::vector<Entry> entries_;
  std::vector<Family> families_;
};

}  // namespace qsa
