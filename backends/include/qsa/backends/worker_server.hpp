#pragma once
// The worker's end of docs/worker-protocol.md, in C++: serves one Backend over the protocol (fd 3
// requests, fd 4 replies, fd 5 the shared memory) until bye or the end of the requests.
// qsacheck-worker-host uses it to run a plugin in a process of its own (--isolate).

#include <string>
#include <utility>
#include <vector>

#include "qsa/backend_interface.hpp"
#include "qsa/backends/plugin_capabilities.hpp"
#include "qsacheck/plugin.h"

namespace qsa::backends {

struct ServedBackend {
  Backend* backend = nullptr;
  std::string name;  // the hello reply's name
  std::string build_info;
  KernelDeclaration capabilities;
  /// Planted variants the hello reply offers ("variants"; docs/worker-protocol.md): name and
  /// description, each selected by the command with `--bug NAME` appended.
  std::vector<std::pair<std::string, std::string>> variants;
};

/// Serves until bye or EOF: 0; 1 when the pipes fail or qsacheck breaks the protocol (a message on
/// stderr). The fds default to the protocol's (3, 4, 5).
int serve_backend(const ServedBackend& served, int request_fd = 3, int reply_fd = 4, int shm_fd = 5);

}  // namespace qsa::backends
