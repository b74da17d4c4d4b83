#pragma once
// Loading a plugin (include/qsacheck/plugin.h) with dlopen and validating its table before any
// call: the ABI major version, the entry symbol, the table's fields, the capabilities and the
// calls they promise. Every failure is an Error naming the path and what is missing; nothing a
// plugin returns is trusted before validation.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "qsa/backends/plugin_capabilities.hpp"
#include "qsa/status.hpp"
#include "qsacheck/plugin.h"

namespace qsa::backends {

/// A loaded and validated plugin. Shared by every instance of every variant of one path, and
/// never unloaded while one exists (dlclose runs when the last reference goes).
class PluginLibrary {
 public:
  ~PluginLibrary();
  PluginLibrary(const PluginLibrary&) = delete;
  PluginLibrary& operator=(const PluginLibrary&) = delete;

  /// The library at `path`, loaded once per path (later calls share it). nullptr with *error
  /// (field "plugin", rule "unloadable", "abi-version", "missing-symbol", "bad-table" or
  /// "missing-capability") when it cannot be used.
  static std::shared_ptr<PluginLibrary> open(const std::string& path, Error* error);

  const std::string& path() const { return path_; }
  const QsaPlugin& table() const { return *table_; }
  /// The capabilities, constraints and deviations as read at load (read_declaration()).
  const KernelDeclaration& declaration() const { return declaration_; }
  const QsaPluginCapabilities& capabilities() const { return declaration_.capabilities; }
  /// Names of the planted variants, in table order.
  std::vector<std::string> variant_names() const;
  bool has_variant(const std::string& name) const;

 private:
  PluginLibrary(std::string path, void* handle, const QsaPlugin* table);

  std::string path_;
  void* handle_;
  const QsaPlugin* table_;
  KernelDeclaration declaration_;
};

/// Problems of a table, empty when it is usable (the part of open() that needs no library; tests
/// feed it hand-made tables). Each entry names the field and what is wrong.
std::vector<Error> validate_plugin_table(const QsaPlugin& table, const std::string& path);

/// Splits "plugin:PATH#VARIANT" into PATH and VARIANT (empty when absent).
struct PluginName {
  std::string path;
  std::string variant;
};
std::optional<PluginName> parse_plugin_name(const std::string& backend_name);
inline constexpr const char* kPluginPrefix = "plugin:";

}  // namespace qsa::backends
