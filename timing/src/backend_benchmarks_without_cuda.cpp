// run_backend_benchmarks() in a build without CUDA: nothing can be timed, and each benchmark says
// why (qsacheck bench says so before it gets here; this keeps the command linkable everywhere).

#include "qsa/timing/backend_benchmarks.hpp"

namespace qsa::timing {

std::vector<Measurement> run_backend_benchmarks(Backend& /*backend*/, const BenchOptions& options) {
  std::vector<Measurement> out;
  for (const StepShape& shape : options.shapes) {
    Measurement m;
    m.name = "BM_StepUpdate/" + options.label + "/" + shape_suffix(shape);
    m.not_timed = "this qsacheck was built without CUDA";
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace qsa::timing
