// qsacheck-worker-host BACKEND: runs one backend of this build (usually plugin:PATH.so[#VARIANT])
// as a worker (docs/worker-protocol.md), so that a plugin that aborts, faults or hangs is a finding
// of qsacheck instead of its end. `qsacheck ... --isolate` starts it; it is not meant to be run
// by hand (it reads requests on fd 3 and answers on fd 4).

#include <cstdio>
#include <string>

#include "qsa/backends/plugin_backend.hpp"
#include "qsa/backends/plugin_library.hpp"
#include "qsa/backends/registry.hpp"
#include "qsa/backends/worker_protocol.hpp"
#include "qsa/backends/worker_server.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: qsacheck-worker-host BACKEND (started by qsacheck --isolate)\n");
    return 2;
  }
  const std::string name = argv[1];
  auto backend = qsa::BackendRegistry::global().create(name);
  std::string reason;
  if (!backend || backend->probe(&reason) != qsa::Status::kOk) {
    std::fprintf(stderr, "qsacheck-worker-host: %s cannot run: %s\n", name.c_str(),
                 backend ? reason.c_str() : "no such backend");
    return 2;
  }
  qsa::backends::ServedBackend served{backend.get(), name, "qsacheck-worker-host", qsa::backends::full_capabilities(), {}};
  if (auto* plugin = dynamic_cast<qsa::backends::PluginBackend*>(backend.get())) {
    served.capabilities = plugin->library()->declaration();
    // The served plugin backend builds and judges its own step metadata itself.
    served.capabilities.capabilities.features &= ~uint32_t{QSA_PLUGIN_FEATURE_STEP_USES_METADATA};
    served.name = plugin->library()->table().name;
    if (const char* info = plugin->library()->table().build_info) served.build_info = info;
  }
  return qsa::backends::serve_backend(served);
}
