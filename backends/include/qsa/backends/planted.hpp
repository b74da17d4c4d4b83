#pragma once
// The planted bugs (docs/planted-bugs.md): realistic kernel mistakes, each a backend of its own, that
// prove the checks catch them (`qsacheck mutants`, the property suite's kill test, the GPU
// planted-bug tests). They are registered hidden, so default campaigns leave them out. The
// implementations live in planted/; this is how every other layer reaches them.

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "qsa/backend_interface.hpp"

namespace qsa::backends {

struct PlantedBug {
  std::string name;         // the backend name: "bug:ring-index-off-by-one", "cuda-planted-work-prefix-race"
  std::string description;  // one line: the bug as a kernel engineer would write it
  std::string needs;        // the scenario feature that shows it: "", "mrope", "fp8", "many-rows", ...
};

/// A planted bug prints as its name (GoogleTest parameters, messages).
inline std::ostream& operator<<(std::ostream& os, const PlantedBug& bug) { return os << bug.name; }

/// The CPU set: the reference re-implemented with one bug planted each (planted/src/cpu_*).
const std::vector<PlantedBug>& planted_cpu_bugs();

/// The metadata-kernel set: the shipped metadata kernel instantiated with one bug each, with the
/// production step update. Empty when CUDA is not built.
const std::vector<PlantedBug>& planted_cuda_metadata_bugs();

/// The step-kernel set: the shipped step-update kernel with one bug each, built for D = 32 and 128
/// and the fast layout only (other inputs get kInvalidInput). Empty when CUDA is not built.
const std::vector<PlantedBug>& planted_cuda_step_bugs();

/// Planted CPU bugs that no check can see on the scenarios' content (not registered: a campaign
/// would only report them as survivors).
const std::vector<PlantedBug>& known_escapes();

/// Test-only backends with other arithmetic, for SPEC 6's tolerance mode (docs/design.md "The float
/// tolerance mode"): "upstream-like", the reference with approximate rsqrt, bf16-rounded RoPE
/// products and tree-ordered pooling. Not bit-exact, but within the row-ulp tolerance; registered
/// hidden, and not planted bugs (`qsacheck mutants` leaves them out).
const std::vector<PlantedBug>& planted_arithmetic_backends();

/// The name of the upstream-like backend; "upstream-like+bug:NAME" is it with a CPU bug planted.
inline constexpr const char* kUpstreamLikeBackend = "upstream-like";

/// The backend of any planted bug by name, the known escapes and "bug:none" (the unmutated
/// re-implementation, a control) included, and of the arithmetic backends ("upstream-like",
/// "upstream-like+bug:NAME"); nullptr when the name is none of these.
std::unique_ptr<Backend> make_planted_backend(const std::string& name);

}  // namespace qsa::backends
