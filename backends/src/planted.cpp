// The planted bugs as the other layers see them: names, descriptions and backends, from the CPU
// catalog (planted/include/qsa/planted/mutant_catalog.hpp) and, when built, the planted CUDA
// kernels (qsa/planted/cuda_planted.hpp).

#include "qsa/backends/planted.hpp"

#include <string_view>

#include "qsa/planted/mutant_catalog.hpp"

#ifdef QSA_HAVE_CUDA
#include "qsa/planted/cuda_planted.hpp"
#endif

namespace qsa::backends {
namespace {

std::vector<PlantedBug> from_catalog(const std::vector<mutants::MutantInfo>& catalog) {
  std::vector<PlantedBug> out;
  for (const mutants::MutantInfo& info : catalog) out.push_back({info.name, info.description, info.needs});
  return out;
}

#ifdef QSA_HAVE_CUDA
std::vector<PlantedBug> from_kernels(const std::vector<mutants::PlantedKernel>& kernels) {
  std::vector<PlantedBug> out;
  for (const mutants::PlantedKernel& kernel : kernels) out.push_back({kernel.name, kernel.description, kernel.needs});
  return out;
}
#endif

}  // namespace

const std::vector<PlantedBug>& planted_cpu_bugs() {
  static const std::vector<PlantedBug> bugs = from_catalog(mutants::mutant_catalog());
  return bugs;
}

const std::vector<PlantedBug>& known_escapes() {
  static const std::vector<PlantedBug> bugs = from_catalog(mutants::known_escapes());
  return bugs;
}

const std::vector<PlantedBug>& planted_cuda_metadata_bugs() {
#ifdef QSA_HAVE_CUDA
  static const std::vector<PlantedBug> bugs = from_kernels(mutants::planted_metadata_kernels());
#else
  static const std::vector<PlantedBug> bugs;
#endif
  return bugs;
}

const std::vector<PlantedBug>& planted_cuda_step_bugs() {
#ifdef QSA_HAVE_CUDA
  static const std::vector<PlantedBug> bugs = from_kernels(mutants::planted_step_kernels());
#else
  static const std::vector<PlantedBug> bugs;
#endif
  return bugs;
}

const std::vector<PlantedBug>& planted_arithmetic_backends() {
  static const std::vector<PlantedBug> backends = {
      {mutants::kUpstreamLikeBackend,
       "test-only: the reference with upstream-like arithmetic (approximate rsqrt, bf16-rounded RoPE products, "
       "tree-ordered pooling); passes only in the row-ulp tolerance mode",
       ""}};
  return backends;
}

std::unique_ptr<Backend> make_planted_backend(const std::string& name) {
  static_assert(std::string_view(kUpstreamLikeBackend) == std::string_view(mutants::kUpstreamLikeBackend));
  std::string bug_name = name;
  mutants::Arithmetic arithmetic = mutants::Arithmetic::kCanonical;
  const std::string upstream_like = mutants::kUpstreamLikeBackend;
  if (name == upstream_like)
    return mutants::make_mutant_backend(mutants::Bug::kNoBug, mutants::Arithmetic::kUpstreamLike);
  if (name.rfind(upstream_like + "+", 0) == 0) {
    bug_name = name.substr(upstream_like.size() + 1);
    arithmetic = mutants::Arithmetic::kUpstreamLike;
  }
  if (bug_name == mutants::mutant_info(mutants::Bug::kNoBug).name)
    return mutants::make_mutant_backend(mutants::Bug::kNoBug, arithmetic);
  for (const auto* list : {&mutants::mutant_catalog(), &mutants::known_escapes()})
    for (const mutants::MutantInfo& info : *list)
      if (info.name == bug_name) return mutants::make_mutant_backend(info.bug, arithmetic);
  if (arithmetic != mutants::Arithmetic::kCanonical) return nullptr;
#ifdef QSA_HAVE_CUDA
  return mutants::make_planted_kernel_backend(name);
#else
  return nullptr;
#endif
}

}  // namespace qsa::backends
