// The planted-bug instantiations of metadata_staged_tiles_kernel (through optimized's detail
// header). No test framework here (nvcc stays on the kernel); the backends are in .cpp files.

#include "metadata_planted.hpp"
#include "qsa/cuda/detail/kernel_variants.cuh"

namespace qsa::mutants {

Status launch_planted_metadata(cuda::detail::MetadataVariant variant, const cuda::MetadataDeviceArgs& args,
                               cudaStream_t stream, Error* error) {
  using cuda::detail::launch_metadata_variant;
  using cuda::detail::MetadataVariant;
  switch (variant) {
    case MetadataVariant::kNoBug:
      return launch_metadata_variant<MetadataVariant::kNoBug>(args, stream, error);
    case MetadataVariant::kColumnBoundOffByOne:
      return launch_metadata_variant<MetadataVariant::kColumnBoundOffByOne>(args, stream, error);
    case MetadataVariant::kRequestSearchOffByOne:
      return launch_metadata_variant<MetadataVariant::kRequestSearchOffByOne>(args, stream, error);
    case MetadataVariant::kWorkPrefixRace:
      return launch_metadata_variant<MetadataVariant::kWorkPrefixRace>(args, stream, error);
    case MetadataVariant::kPaddingRowsUnwritten:
      return launch_metadata_variant<MetadataVariant::kPaddingRowsUnwritten>(args, stream, error);
    case MetadataVariant::kRingKeepsEveryRow:
      return launch_metadata_variant<MetadataVariant::kRingKeepsEveryRow>(args, stream, error);
    case MetadataVariant::kNegativeCommonSlotIgnored:
      return launch_metadata_variant<MetadataVariant::kNegativeCommonSlotIgnored>(args, stream, error);
    case MetadataVariant::kZeroLengthRequestGetsWork:
      return launch_metadata_variant<MetadataVariant::kZeroLengthRequestGetsWork>(args, stream, error);
    case MetadataVariant::kWorkTailUnwritten:
      return launch_metadata_variant<MetadataVariant::kWorkTailUnwritten>(args, stream, error);
    case MetadataVariant::kColumnStrideIgnored:
      return launch_metadata_variant<MetadataVariant::kColumnStrideIgnored>(args, stream, error);
    case MetadataVariant::kHoldsWritesAfterTrigger:
      return launch_metadata_variant<MetadataVariant::kHoldsWritesAfterTrigger>(args, stream, error);
  }
  return invalid(error, "variant", -1, "unknown", "not a metadata kernel variant");
}

Status launch_held_metadata(const cuda::MetadataDeviceArgs& args, cudaStream_t stream, Error* error,
                            const cuda::MetadataLaunchConfig& config) {
  return cuda::detail::launch_metadata_variant<cuda::detail::MetadataVariant::kHoldsWritesAfterTrigger>(
      args, stream, error, config.programmatic_launch);
}

}  // namespace qsa::mutants
