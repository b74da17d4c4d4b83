#include "metadata_planted.hpp"

#include "qsa/cuda/cuda_backend.hpp"
#include "qsa/planted/cuda_planted.hpp"
#include "step_planted.hpp"

namespace qsa::planted {

const std::vector<PlantedMetadataBug>& planted_metadata_bugs() {
  static const std::vector<PlantedMetadataBug> bugs = {
      {MetadataVariant::kColumnBoundOffByOne, "column-bound-off-by-one",
       "compressed: logical block L == W passes the bound check and reads one column past the table"},
      {MetadataVariant::kRequestSearchOffByOne, "request-search-off-by-one",
       "token_to_req search tests qsl[mid] < t instead of <=, so a request's first row goes to its predecessor"},
      {MetadataVariant::kWorkPrefixRace, "work-prefix-race",
       "k-work scan reads the per-warp totals without the barrier after they are written"},
      {MetadataVariant::kPaddingRowsUnwritten, "padding-rows-unwritten", "rows M..N-1 keep whatever the buffers held"},
      {MetadataVariant::kRingKeepsEveryRow, "ring-keeps-every-row",
       "ring: every row of a chunk gets a slot, not only the last R (earlier rows alias later ones)"},
      {MetadataVariant::kNegativeCommonSlotIgnored, "negative-common-slot-ignored",
       "compressed: a group-closing row whose common slot is negative still gets a compressed slot"},
      {MetadataVariant::kZeroLengthRequestGetsWork, "zero-length-request-gets-work",
       "k-work: n_j = max(1, ...) also for a request with no rows"},
      {MetadataVariant::kWorkTailUnwritten, "work-tail-unwritten",
       "k-work rows past sum(n_j) are not filled with (-1, -1)"},
      {MetadataVariant::kColumnStrideIgnored, "column-stride-ignored",
       "compressed: block_table[j][L] read at j * row_stride + L, as if the column stride were 1"},
  };
  return bugs;
}

std::unique_ptr<Backend> make_planted_cuda_backend(const PlantedMetadataBug& bug) {
  const MetadataVariant variant = bug.variant;
  return std::make_unique<cuda::CudaBackend>(
      "cuda-planted-" + bug.name, [variant](const cuda::MetadataDeviceArgs& args, cudaStream_t stream, Error* error) {
        return launch_planted_metadata(variant, args, stream, error);
      });
}

const std::vector<PlantedKernel>& planted_metadata_kernels() {
  static const std::vector<PlantedKernel> kernels = [] {
    std::vector<PlantedKernel> out;
    for (const PlantedMetadataBug& bug : planted_metadata_bugs())
      out.push_back({"cuda-planted-" + bug.name, bug.description, ""});
    return out;
  }();
  return kernels;
}

const std::vector<PlantedKernel>& planted_step_kernels() {
  static const std::vector<PlantedKernel> kernels = [] {
    std::vector<PlantedKernel> out;
    for (const PlantedStepBug& bug : planted_step_bugs())
      out.push_back({"cuda-planted-step-" + bug.name, bug.description, bug.needs});
    return out;
  }();
  return kernels;
}

std::unique_ptr<Backend> make_planted_kernel_backend(const std::string& name) {
  for (const PlantedMetadataBug& bug : planted_metadata_bugs())
    if ("cuda-planted-" + bug.name == name) return make_planted_cuda_backend(bug);
  for (const PlantedStepBug& bug : planted_step_bugs())
    if ("cuda-planted-step-" + bug.name == name) return make_planted_step_backend(bug);
  if (name == kHeldMetadataPdlBackend) return make_held_metadata_pdl_backend();
  return nullptr;
}

}  // namespace qsa::planted
