// `qsacheck backends`: what can be checked, with capabilities, without running anything. On a
// plugin (--backend plugin:PATH.so) it loads and validates the table: a plugin that cannot be
// used is exit 2 with the path and what is missing.

#include <cstdio>
#include <memory>

#include "backend_choice.hpp"
#include "commands.hpp"
#include "output.hpp"
#include "qsa/backends/plugin_backend.hpp"
#include "qsa/backends/plugin_capabilities.hpp"
#include "qsa/backends/plugin_library.hpp"
#include "qsa/backends/worker_backend.hpp"
#include "qsa/backends/worker_protocol.hpp"
#include "worker_options.hpp"

namespace qsa::cli {
namespace {

void print_plugin(const backends::PluginLibrary& library) {
  const QsaPlugin& t = library.table();
  std::printf("  plugin        %s (ABI %u.%u, SPEC %s)\n", t.name, t.abi_major, t.abi_minor, t.spec_version);
  std::printf("  build         %s\n", t.build_info != nullptr ? t.build_info : "");
  for (const auto& [key, value] : backends::describe_capabilities(library.declaration()))
    std::printf("  %-13s %s\n", key.c_str(), value.c_str());
  std::printf("  variants      %d\n", t.num_variants);
  for (int32_t i = 0; i < t.num_variants; ++i)
    std::printf("    #%-20s %s\n", t.variants[i].name, t.variants[i].description ? t.variants[i].description : "");
}

void print_worker(const backends::WorkerBackend& worker) {
  const backends::WorkerHello& h = worker.hello();
  std::printf("  worker        %s (protocol %d, SPEC %s)\n", h.name.c_str(), h.protocol,
              h.spec_version.c_str());
  std::printf("  command       %s\n", worker.command().c_str());
  std::printf("  build         %s\n", h.build_info.c_str());
  for (const auto& [key, value] : backends::describe_capabilities(h.capabilities))
    if (key != "memory") std::printf("  %-13s %s\n", key.c_str(), value.c_str());
}

int run_backends(const std::vector<std::string>& requested) {
  BackendRegistry& registry = BackendRegistry::global();
  std::vector<std::string> names = requested;
  if (names.empty()) names = registry.names();
  // Every backend is opened before a line is printed: a named one that cannot be used is exit 2
  // with the error line alone on stdout (the listing came first); in the full listing
  // (no --backend) one that cannot be opened here is listed as not running, exit 0.
  std::vector<std::unique_ptr<Backend>> opened;
  std::vector<std::string> unusable;
  for (const std::string& name : names) {
    Error error;
    auto backend = registry.create(name);
    auto* plugin = dynamic_cast<backends::PluginBackend*>(backend.get());
    // A valid plugin that cannot run on this machine (no CUDA device) is still listed and validated.
    if (plugin == nullptr || plugin->library() == nullptr) {
      backend = open_backend(name, &error);
      if (!backend && !requested.empty()) return report_error(error);
    }
    unusable.push_back(backend ? "" : error.message);
    opened.push_back(std::move(backend));
  }
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    std::printf("%s\n  description   %s\n", name.c_str(), registry.description(name).c_str());
    Backend* backend = opened[i].get();
    if (backend == nullptr) {
      std::printf("  runs here     no: %s\n", unusable[i].c_str());
      continue;
    }
    auto* plugin = dynamic_cast<backends::PluginBackend*>(backend);
    if (plugin != nullptr && plugin->library() != nullptr)
      print_plugin(*plugin->library());
    else if (auto* worker = dynamic_cast<backends::WorkerBackend*>(backend))
      print_worker(*worker);
    else
      std::printf("  capabilities  built in: every input of the contract\n");
    std::string reason;
    const bool runs = backend->probe(&reason) == Status::kOk;
    std::printf("  runs here     %s\n", runs ? "yes" : ("no: " + reason).c_str());
  }
  if (requested.empty()) {
    std::printf("plugin:PATH.so[#VARIANT]\n  description   %s\n", registry.description("plugin:x").c_str());
    std::printf("worker:\"COMMAND ARGS\"\n  description   %s\n", registry.description("worker:x").c_str());
    std::printf("(planted bugs: `qsacheck mutants --list`)\n");
  }
  return kExitOk;
}

}  // namespace

void add_backends_command(CLI::App& app, CommandJob* job) {
  auto requested = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand(
      "backends",
      "List the backends this qsacheck can check, with their capabilities, without running anything.\n"
      "With --backend plugin:PATH.so: load the plugin and validate its table (ABI version, entry symbol,\n"
      "calls, capabilities). Exit 0: usable; 2: not (the path and what is missing are named).");
  cmd->add_option("--backend", *requested, "Only this backend (repeatable), e.g. plugin:./libmy_kernel.so");
  auto worker = std::make_shared<WorkerOptions>();
  add_worker_options(cmd, worker.get());
  cmd->callback([=] {
    apply_worker_options(*worker, requested.get());
    *job = [requested] { return run_backends(*requested); };
  });
}

}  // namespace qsa::cli
