// The planted bugs as the other layers see them: names, descriptions and backends, from the CPU
// catalog (planted/include/qsa/planted/catalog.hpp) and, when built, the planted CUDA
// kernels (qsa/planted/cuda_planted.hpp).

#include "qsa/backends/planted.hpp"

#include <string_view>

#include "qsa/planted/catalog.hpp"

#ifdef QSA_HAVE_CUDA
#include "qsa/planted/cuda_planted.hpp"
#endif

namespace qsa::backends {
namespace {

std::vector<PlantedBug> from_catalog(const std::vector<planted::PlantedInfo>& catalog) {
  std::vector<PlantedBug> out;
  for (const planted::PlantedInfo& info : catalog) out.push_back({info.name, info.description, info.needs});
  return out;
}

#ifdef QSA_HAVE_CUDA
std::vector<PlantedBug> from_kernels(const std::vector<planted::PlantedKernel>& kernels) {
  std::vector<PlantedBug> out;
  for (const planted::PlantedKernel& kernel : kernels) out.push_back({kernel.name, kernel.description, kernel.needs});
  return out;
}
#endif

}  // namespace

const std::vector<PlantedBug>& planted_cpu_bugs() {
  static const std::vector<PlantedBug> bugs = from_catalog(planted::catalog());
  return bugs;
}

const std::vector<PlantedBug>& known_escapes() {
  static const std::vector<PlantedBug> bugs = from_catalog(planted::known_escapes());
  return bugs;
}

const std::vector<PlantedBug>& planted_cuda_metadata_bugs() {
#ifdef QSA_HAVE_CUDA
  static const std::vector<PlantedBug> bugs = from_kernels(planted::planted_metadata_kernels());
#else
  static const std::vector<PlantedBug> bugs;
#endif
  return bugs;
}

const std::vector<PlantedBug>& planted_cuda_step_bugs() {
#ifdef QSA_HAVE_CUDA
  static const std::vector<PlantedBug> bugs = from_kernels(planted::planted_step_kernels());
#else
  static const std::vector<PlantedBug> bugs;
#endif
  return bugs;
}

const std::vector<PlantedBug>& planted_arithmetic_backends() {
  static const std::vector<PlantedBug> backends = {
      {planted::kUpstreamLikeBackend,
       "test-only: the reference with upstream-like arithmetic (approximate rsqrt, bf16-rounded RoPE products, "
       "tree-ordered pooling); passes only in the row-ulp tolerance mode",
       ""}};
  return backends;
}

std::unique_ptr<Backend> make_planted_backend(const std::string& name) {
  static_assert(std::string_view(kUpstreamLikeBackend) == std::string_view(planted::kUpstreamLikeBackend));
  std::string bug_name = name;
  planted::Arithmetic arithmetic = planted::Arithmetic::kCanonical;
  const std::string upstream_like = planted::kUpstreamLikeBackend;
  if (name == upstream_like)
    return planted::make_planted_backend(planted::Bug::kNoBug, planted::Arithmetic::kUpstreamLike);
  if (name.rfind(upstream_like + "+", 0) == 0) {
    bug_name = name.substr(upstream_like.size() + 1);
    arithmetic = planted::Arithmetic::kUpstreamLike;
  }
  if (bug_name == planted::planted_info(planted::Bug::kNoBug).name)
    return planted::make_planted_backend(planted::Bug::kNoBug, arithmetic);
  for (const auto* list : {&planted::catalog(), &planted::known_escapes()})
    for (const planted::PlantedInfo& info : *list)
      if (info.name == bug_name) return planted::make_planted_backend(info.bug, arithmetic);
  if (arithmetic != planted::Arithmetic::kCanonical) return nullptr;
#ifdef QSA_HAVE_CUDA
  return planted::make_planted_kernel_backend(name);
#else
  return nullptr;
#endif
}

}  // namespace qsa::backends
