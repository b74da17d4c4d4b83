#pragma once
// Host-side planning of one metadata launch: checks the launch arguments (host values only) and
// fills the kernel's parameter block and grid. Shared by the shipped launcher and the launchers of
// other policies (through the detail header in qsa/cuda/detail/).

#include "kernels/metadata_params.hpp"
#include "qsa/cuda/metadata.hpp"

namespace qsa::cuda::detail {

/// Dynamic shared memory the kernel may use after prepare_metadata_launch() (bytes).
size_t max_metadata_shared_bytes();

/// kOk and *params, *shape filled, or kInvalidInput naming the offending argument. Reads only the
/// host-side values of `args` (never device memory).
Status plan_metadata_launch(const MetadataDeviceArgs& args, const MetadataLaunchConfig& config, MetadataParams* params,
                            MetadataLaunchShape* shape, Error* error);

}  // namespace qsa::cuda::detail
