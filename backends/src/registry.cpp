#include "qsa/backends/registry.hpp"

#include <algorithm>

#include "qsa/backends/builtin.hpp"

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
  Entry entry{name, description, std::move(factory), hidden};
  if (it != entries_.end())
    *it = std::move(entry);
  else
    entries_.push_back(std::move(entry));
}

std::unique_ptr<Backend> BackendRegistry::create(const std::string& name) const {
  for (const Entry& e : entries_)
    if (e.name == name) return e.factory();
  return nullptr;
}

bool BackendRegistry::contains(const std::string& name) const {
  return std::any_of(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.name == name; });
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
  return {};
}

}  // namespace qsa
