// Test-only instantiations of metadata_staged_tiles_kernel with a planted bug. No test framework
// here (nvcc stays on the kernel); the backends and tests are in .cpp files.

#include "kernels/metadata_staged_tiles.cuh"
#include "metadata_plan.hpp"
#include "planted/metadata_planted.hpp"
#include "qsa/cuda/cuda_check.hpp"

namespace qsa::testing {
namespace {

using cuda::detail::MetadataVariant;

template <MetadataVariant kVariant>
Status launch_variant(const cuda::MetadataDeviceArgs& args, cudaStream_t stream, Error* error) {
  cuda::detail::MetadataParams params{};
  cuda::MetadataLaunchShape shape;
  if (Status s = cuda::detail::plan_metadata_launch(args, {}, &params, &shape, error); s != Status::kOk) return s;
  static const cudaError_t prepared =
      cuda::detail::allow_metadata_shared_memory<kVariant>(static_cast<int>(cuda::detail::max_metadata_shared_bytes()));
  QSA_CUDA_TRY(prepared, error);
  QSA_CUDA_TRY((cuda::detail::launch_metadata_staged_tiles<kVariant>(
                   params, shape.threads, shape.row_blocks + shape.work_blocks, shape.shared_bytes, stream)),
               error);
  return Status::kOk;
}

}  // namespace

Status launch_planted_metadata(MetadataVariant variant, const cuda::MetadataDeviceArgs& args, cudaStream_t stream,
                               Error* error) {
  switch (variant) {
    case MetadataVariant::kCorrect:
      return launch_variant<MetadataVariant::kCorrect>(args, stream, error);
    case MetadataVariant::kColumnBoundOffByOne:
      return launch_variant<MetadataVariant::kColumnBoundOffByOne>(args, stream, error);
    case MetadataVariant::kRequestSearchOffByOne:
      return launch_variant<MetadataVariant::kRequestSearchOffByOne>(args, stream, error);
    case MetadataVariant::kWorkPrefixRace:
      return launch_variant<MetadataVariant::kWorkPrefixRace>(args, stream, error);
    case MetadataVariant::kPaddingRowsUnwritten:
      return launch_variant<MetadataVariant::kPaddingRowsUnwritten>(args, stream, error);
    case MetadataVariant::kRingKeepsEveryRow:
      return launch_variant<MetadataVariant::kRingKeepsEveryRow>(args, stream, error);
    case MetadataVariant::kNegativeCommonSlotIgnored:
      return launch_variant<MetadataVariant::kNegativeCommonSlotIgnored>(args, stream, error);
    case MetadataVariant::kZeroLengthRequestGetsWork:
      return launch_variant<MetadataVariant::kZeroLengthRequestGetsWork>(args, stream, error);
    case MetadataVariant::kWorkTailUnwritten:
      return launch_variant<MetadataVariant::kWorkTailUnwritten>(args, stream, error);
    case MetadataVariant::kColumnStrideIgnored:
      return launch_variant<MetadataVariant::kColumnStrideIgnored>(args, stream, error);
  }
  return invalid(error, "variant", -1, "unknown", "not a metadata kernel variant");
}

}  // namespace qsa::testing
