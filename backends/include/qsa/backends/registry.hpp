#pragma once
// Backends by name: every entry point (qsacheck, the property suite, the fuzzers, the
// benchmarks) picks its backend here, so every check reaches every backend. The interface itself
// is the reference's (qsa/backend_interface.hpp); this layer only names and creates implementations.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "qsa/backend_interface.hpp"

namespace qsa {

using BackendFactory = std::function<std::unique_ptr<Backend>()>;
/// Builds a backend from its whole name (e.g. "plugin:/path/lib.so#variant"). It never returns
/// nullptr for a name with its prefix: a backend that cannot load says why from probe().
using BackendFamilyFactory = std::function<std::unique_ptr<Backend>(const std::string& name)>;
/// Builds an instance on CUDA device `device` (its own stream there): the backends a campaign
/// spreads over several GPUs (`qsacheck check --devices`).
using DeviceBackendFactory = std::function<std::unique_ptr<Backend>(int device)>;

class BackendRegistry {
 public:
  /// The process-wide registry. Every backend built into the binary, and the plugin:PATH family,
  /// is registered on first use (backends::register_builtin_backends()).
  static BackendRegistry& global();

  /// Adds (or replaces) a backend. `hidden` ones (planted bugs) are left out of default campaigns.
  void add(const std::string& name, const std::string& description, BackendFactory factory, bool hidden = false);
  /// Adds a backend that runs on a chosen device; create() makes it on device 0.
  void add_on_devices(const std::string& name, const std::string& description, DeviceBackendFactory factory,
                      bool hidden = false);
  /// Names that start with `prefix` (e.g. "plugin:") are built by `factory`; they are never listed.
  void add_family(const std::string& prefix, const std::string& description, BackendFamilyFactory factory);
  /// nullptr when the name is unknown.
  std::unique_ptr<Backend> create(const std::string& name) const;
  /// An instance on `device`; nullptr when the name is unknown or the backend has no device
  /// ordinal (a CPU backend: the reference, the CPU planted bugs, plugins for now).
  std::unique_ptr<Backend> create_on_device(const std::string& name, int device) const;
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
    DeviceBackendFactory on_device;  // empty for a backend without a device ordinal
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

namespace backends {
/// The seconds a kernel from outside spent inside its own calls (PluginBackend::kernel_seconds,
/// WorkerBackend::kernel_seconds), or nullopt for a built-in backend: what `qsacheck check` reports
/// apart from its own share (docs/campaign-time.md).
std::optional<double> kernel_seconds(const Backend& backend);
}  // namespace backends

}  // namespace qsa
