// A worker (docs/worker-protocol.md) that serves the CPU planted set: `planted_worker` is the
// control (bug:none), `planted_worker --bug NAME` plants bug:NAME. Its hello offers every planted
// bug as a variant, so `qsacheck mutants --backend worker:planted_worker` runs the same bugs through
// the worker path as the built-in `qsacheck mutants` (backends.planted_bugs_*). Test-only.

#include <cstdio>
#include <cstring>
#include <string>

#include "qsa/backends/worker_protocol.hpp"
#include "qsa/backends/worker_server.hpp"
#include "qsa/planted/catalog.hpp"

int main(int argc, char** argv) {
  using qsa::planted::Bug;
  Bug bug = Bug::kNoBug;
  bool known = argc == 1;
  std::string name = "planted-cpu";
  if (argc == 3 && std::strcmp(argv[1], "--bug") == 0) {
    for (const qsa::planted::PlantedInfo& info : qsa::planted::catalog())
      if (info.name == std::string("bug:") + argv[2]) {
        bug = info.bug;
        known = true;
      }
    name += std::string("#") + argv[2];
  }
  if (!known) {
    std::fprintf(stderr, "usage: planted_worker [--bug NAME] (NAME: a planted bug without \"bug:\")\n");
    return 2;
  }
  auto backend = qsa::planted::make_planted_backend(bug);
  qsa::backends::ServedBackend served{backend.get(), name, "backends/tests/workers/planted_worker.cpp",
                                      qsa::backends::full_capabilities(), {}};
  for (const qsa::planted::PlantedInfo& info : qsa::planted::catalog())
    served.variants.emplace_back(info.name.substr(4), info.description);  // past "bug:"
  return qsa::backends::serve_backend(served);
}
