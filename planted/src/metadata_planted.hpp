#pragma once
// The CUDA metadata kernel with one realistic bug planted (a compile-time variant of
// metadata_staged_tiles_kernel), wrapped as a backend. The GPU differential suite must catch
// every one of them (properties/metadata_planted_bugs_test.cpp). Private to planted/: other
// layers see qsa/planted/cuda_planted.hpp.

#include <memory>
#include <string>
#include <vector>

#include "qsa/backend.hpp"
#include "qsa/cuda/detail/kernel_variants.hpp"
#include "qsa/cuda/metadata.hpp"

namespace qsa::mutants {

struct PlantedMetadataBug {
  cuda::detail::MetadataVariant variant;
  std::string name;         // e.g. "column-bound-off-by-one"
  std::string description;  // what the bug does, in one line
};

/// Every planted variant (kNoBug excluded).
const std::vector<PlantedMetadataBug>& planted_metadata_bugs();

/// Launches the given variant exactly as launch_metadata launches the production kernel.
Status launch_planted_metadata(cuda::detail::MetadataVariant variant, const cuda::MetadataDeviceArgs& args,
                               cudaStream_t stream, Error* error);

/// The metadata kernel that holds its writes back after letting the next grid launch (correct, but
/// slow: MetadataVariant::kHoldsWritesAfterTrigger), plainly or with PDL as `config` says. Behind it
/// a step kernel that skips its PDL wait reads the poisoned k-work every time.
Status launch_held_metadata(const cuda::MetadataDeviceArgs& args, cudaStream_t stream, Error* error,
                            const cuda::MetadataLaunchConfig& config);

/// A CudaBackend named "cuda-planted-<name>" that launches the variant.
std::unique_ptr<Backend> make_planted_cuda_backend(const PlantedMetadataBug& bug);

}  // namespace qsa::mutants
