#include "qsa/backends/registry.hpp"

#include <algorithm>

#include "qsa/backends/builtin.hpp"
#include "qsa/backends/plugin_backend.hpp"
#include "qsa/backends/worker_backend.hpp"

namespace qsa {

BackendRegistry& BackendRegistry::global() {
  static BackendRegistry* registry = [] {
    auto* r = new BackendRegistry();
    backends::register_builtin_backends(*r);
    return r;
  }();
  return *registry;
}

void BackendRegistry::add(const std::string& name, const std::string& description, BackendFactory factory,
                          bool hidden) {
  auto it = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.name == name; });
  Entry entry{name, description, std::move(factory), hidden, nullptr};
  if (it != entries_.end())
    *it = std::move(entry);
  else
    entries_.push_back(std::move(entry));
}

void BackendRegistry::add_on_devices(const std::string& name, const std::string& description,
                                     DeviceBackendFactory factory, bool hidden) {
  add(
      name, description, [factory] { return factory(0); }, hidden);
  for (Entry& e : entries_)
    if (e.name == name) e.on_device = std::move(factory);
}

void BackendRegistry::add_family(const std::string& prefix, const std::string& description,
                                 BackendFamilyFactory factory) {
  auto it = std::find_if(families_.begin(), families_.end(), [&](const Family& f) { return f.prefix == prefix; });
  Family family{prefix, description, std::move(factory)};
  if (it != families_.end())
    *it = std::move(family);
  else
    families_.push_back(std::move(family));
}

const BackendRegistry::Family* BackendRegistry::family_of(const std::string& name) const {
  for (const Family& f : families_)
    if (name.size() > f.prefix.size() && name.compare(0, f.prefix.size(), f.prefix) == 0) return &f;
  return nullptr;
}

std::unique_ptr<Backend> BackendRegistry::create(const std::string& name) const {
  for (const Entry& e : entries_)
    if (e.name == name) return e.factory();
  if (const Family* f = family_of(name)) return f->factory(name);
  return nullptr;
}

std::unique_ptr<Backend> BackendRegistry::create_on_device(const std::string& name, int device) const {
  for (const Entry& e : entries_)
    if (e.name == name) return e.on_device ? e.on_device(device) : nullptr;
  return nullptr;
}

bool BackendRegistry::contains(const std::string& name) const {
  return family_of(name) != nullptr ||
         std::any_of(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.name == name; });
}

std::vector<std::string> BackendRegistry::names(bool include_hidden) const {
  std::vector<std::string> out;
  for (const Entry& e : entries_)
    if (include_hidden || !e.hidden) out.push_back(e.name);
  return out;
}

std::string BackendRegistry::description(const std::string& name) const {
  for (const Entry& e : entries_)
    if (e.name == name) return e.description;
  if (const Family* f = family_of(name)) return f->description;
  return {};
}

namespace backends {
std::optional<double> kernel_seconds(const Backend& backend) {
  if (const auto* plugin = dynamic_cast<const PluginBackend*>(&backend)) return plugin->kernel_seconds();
  if (const auto* worker = dynamic_cast<const WorkerBackend*>(&backend)) return worker->kernel_seconds();
  return std::nullopt;
}
}  // namespace backends

}  // namespace qsa
