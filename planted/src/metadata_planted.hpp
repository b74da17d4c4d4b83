#pragma once
// The CUDA metadata kernel with one realistic bug planted (metadata_staged_tiles_kernel with a
// policy of cuda/metadata_policies.cuh), wrapped as a backend. The GPU differential suite must catch
// every one of them (properties/metadata_planted_bugs_test.cpp). Private to planted/: other
// layers see qsa/planted/cuda_planted.hpp.

#include <memory>
#include <string>
#include <vector>

#include "qsa/backend_interface.hpp"
#include "qsa/cuda/metadata.hpp"

namespace qsa::planted {

/// The planted metadata kernels, each a policy of cuda/metadata_policies.cuh of the same name
/// without the k (kNoBug: the shipped MetadataPolicy).
enum class MetadataVariant : int {
  kNoBug,
  kColumnBoundOffByOne,        // compressed: accepts logical block L == W (reads one column past the table)
  kRequestSearchOffByOne,      // token_to_req search tests qsl[mid] < t instead of <=
  kWorkPrefixRace,             // k-work scan reads the warp totals without the barrier after they are written
  kPaddingRowsUnwritten,       // rows M..N-1 are left untouched
  kRingKeepsEveryRow,          // ring: the "last R rows of the chunk" survival test is dropped
  kNegativeCommonSlotIgnored,  // compressed: the common slot's sign is not consulted
  kZeroLengthRequestGetsWork,  // n_j = max(1, ...) also for q_j = 0
  kWorkTailUnwritten,          // k-work rows past sum(n_j) are not filled with (-1, -1)
  kColumnStrideIgnored,        // block_table column addressed as if col_stride == 1
  // Not a bug: a correct kernel that holds its writes back after it lets the next grid launch, so
  // that a step kernel skipping its PDL wait reads them early every time.
  kHoldsWritesAfterTrigger,
};

struct PlantedMetadataBug {
  MetadataVariant variant;
  std::string name;         // e.g. "column-bound-off-by-one"
  std::string description;  // what the bug does, in one line
};

/// Every planted variant (kNoBug excluded).
const std::vector<PlantedMetadataBug>& planted_metadata_bugs();

/// Launches the given variant exactly as launch_metadata launches the production kernel.
Status launch_planted_metadata(MetadataVariant variant, const cuda::MetadataDeviceArgs& args,
                               cudaStream_t stream, Error* error);

/// The metadata kernel that holds its writes back after letting the next grid launch (correct, but
/// slow: MetadataVariant::kHoldsWritesAfterTrigger), plainly or with PDL as `config` says. Behind it
/// a step kernel that skips its PDL wait reads the poisoned k-work every time.
Status launch_held_metadata(const cuda::MetadataDeviceArgs& args, cudaStream_t stream, Error* error,
                            const cuda::MetadataLaunchConfig& config);

/// A CudaBackend named "cuda-planted-<name>" that launches the variant.
std::unique_ptr<Backend> make_planted_cuda_backend(const PlantedMetadataBug& bug);

}  // namespace qsa::planted
