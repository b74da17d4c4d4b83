// The planted-bug instantiations of metadata_staged_tiles_kernel: one policy each
// (cuda/metadata_policies.cuh), through optimized's detail header. No test framework here (nvcc
// stays on the kernel); the backends are in .cpp files.

#include "cuda/metadata_policies.cuh"
#include "metadata_planted.hpp"

namespace qsa::planted {

Status launch_planted_metadata(MetadataVariant variant, const cuda::MetadataDeviceArgs& args, cudaStream_t stream,
                               Error* error) {
  using cuda::detail::launch_metadata_variant;
  switch (variant) {
    case MetadataVariant::kNoBug:
      return launch_metadata_variant<cuda::detail::MetadataPolicy>(args, stream, error);
    case MetadataVariant::kColumnBoundOffByOne:
      return launch_metadata_variant<ColumnBoundOffByOne>(args, stream, error);
    case MetadataVariant::kRequestSearchOffByOne:
      return launch_metadata_variant<RequestSearchOffByOne>(args, stream, error);
    case MetadataVariant::kWorkPrefixRace:
      return launch_metadata_variant<WorkPrefixRace>(args, stream, error);
    case MetadataVariant::kPaddingRowsUnwritten:
      return launch_metadata_variant<PaddingRowsUnwritten>(args, stream, error);
    case MetadataVariant::kRingKeepsEveryRow:
      return launch_metadata_variant<RingKeepsEveryRow>(args, stream, error);
    case MetadataVariant::kNegativeCommonSlotIgnored:
      return launch_metadata_variant<NegativeCommonSlotIgnored>(args, stream, error);
    case MetadataVariant::kZeroLengthRequestGetsWork:
      return launch_metadata_variant<ZeroLengthRequestGetsWork>(args, stream, error);
    case MetadataVariant::kWorkTailUnwritten:
      return launch_metadata_variant<WorkTailUnwritten>(args, stream, error);
    case MetadataVariant::kColumnStrideIgnored:
      return launch_metadata_variant<ColumnStrideIgnored>(args, stream, error);
    case MetadataVariant::kHoldsWritesAfterTrigger:
      return launch_metadata_variant<HoldsWritesAfterTrigger>(args, stream, error);
  }
  return invalid(error, "variant", -1, "unknown", "not a metadata kernel variant");
}

Status launch_held_metadata(const cuda::MetadataDeviceArgs& args, cudaStream_t stream, Error* error,
                            const cuda::MetadataLaunchConfig& config) {
  return cuda::detail::launch_metadata_variant<HoldsWritesAfterTrigger>(args, stream, error,
                                                                        config.programmatic_launch);
}

}  // namespace qsa::planted
