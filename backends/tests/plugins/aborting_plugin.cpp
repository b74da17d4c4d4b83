// The host example plugin with one planted crash: its third step update calls abort(), as a kernel
// that hits an assertion would. Loaded in-process it would end qsacheck; under --isolate
// (qsacheck-worker-host) it must be a finding at that step, with a reproducer.

#include <cstdlib>

#include "example.hpp"

// The example's plugin.cpp is built with its entry renamed to this (backends/tests/CMakeLists.txt).
extern "C" const QsaPlugin* qsa_example_entry(void);

namespace {

int32_t step_that_aborts(void* instance, const QsaPluginStepArgs* args, QsaPluginError* error) {
  static int calls = 0;
  if (++calls == 3) std::abort();
  return qsa_example_entry()->step_update(instance, args, error);
}

QsaPlugin make_table() {
  QsaPlugin table = *qsa_example_entry();
  table.name = "aborting";
  table.step_update = step_that_aborts;
  return table;
}

const QsaPlugin kTable = make_table();

}  // namespace

extern "C" QSA_PLUGIN_EXPORT const QsaPlugin* qsa_plugin_entry(void) { return &kTable; }
