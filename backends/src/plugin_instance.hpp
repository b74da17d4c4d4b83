#pragma once
// A loaded plugin's instance, shared by the plugin backend and its device step.

#include <memory>

#include "qsa/backends/plugin_library.hpp"

namespace qsa::backends {

// A plugin instance, destroyed through its table. Without CONCURRENT_INSTANCES one instance per
// (path, variant) is shared by every backend of that name, so at most one exists at a time.
struct PluginInstance {
  std::shared_ptr<PluginLibrary> library;
  void* handle = nullptr;
  ~PluginInstance() {
    if (handle != nullptr) library->table().destroy(handle);
  }
};

}  // namespace qsa::backends
