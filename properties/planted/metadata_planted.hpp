#pragma once
// Test-only: the CUDA metadata kernel with one realistic bug planted (a compile-time variant of
// metadata_staged_tiles_kernel), wrapped as a backend. The GPU differential suite must catch
// every one of them (properties/metadata_planted_bugs_test.cpp).

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "kernels/metadata_params.hpp"
#include "qsa/backend.hpp"
#include "qsa/cuda/metadata.hpp"

namespace qsa::testing {

struct PlantedMetadataBug {
  cuda::detail::MetadataVariant variant;
  std::string name;         // e.g. "column-bound-off-by-one"
  std::string description;  // what the bug does, in one line
};

/// GoogleTest prints a parameter through this (test names show the bug's name, not bytes).
void PrintTo(const PlantedMetadataBug& bug, std::ostream* os);

/// Every planted variant (kCorrect excluded).
const std::vector<PlantedMetadataBug>& planted_metadata_bugs();

/// Launches the given variant exactly as launch_metadata launches the production kernel.
Status launch_planted_metadata(cuda::detail::MetadataVariant variant, const cuda::MetadataDeviceArgs& args,
                               cudaStream_t stream, Error* error);

/// A CudaBackend named "cuda-planted-<name>" that launches the variant.
std::unique_ptr<Backend> make_planted_cuda_backend(const PlantedMetadataBug& bug);

/// Registers every planted backend, hidden from default campaigns.
void register_planted_cuda_backends(BackendRegistry& registry);

}  // namespace qsa::testing
