// The shipped launcher of metadata_staged_tiles_kernel (its policy: MetadataPolicy, the default).

#include <atomic>

#include "kernels/metadata_staged_tiles.cuh"
#include "metadata_plan.hpp"
#include "qsa/cuda/cuda_check.hpp"
#include "qsa/cuda/metadata.hpp"

namespace qsa::cuda {
namespace {

std::atomic<bool> shared_memory_prepared{false};
constexpr size_t kDefaultSharedLimit = 48 * 1024;

}  // namespace

Status prepare_metadata_launch(Error* error) {
  QSA_CUDA_TRY(detail::allow_metadata_shared_memory<>(static_cast<int>(detail::max_metadata_shared_bytes())), error);
  shared_memory_prepared.store(true);
  return Status::kOk;
}

Status launch_metadata(const MetadataDeviceArgs& args, cudaStream_t stream, Error* error,
                       const MetadataLaunchConfig& config) {
  detail::MetadataParams params{};
  MetadataLaunchShape shape;
  if (Status s = detail::plan_metadata_launch(args, config, &params, &shape, error); s != Status::kOk) return s;
  if (shape.shared_bytes > kDefaultSharedLimit && !shared_memory_prepared.load())
    return invalid(error, "num_requests", -1, "not-prepared",
                   "NR = " + std::to_string(args.num_requests) +
                       " needs more than 48 KiB of shared memory: call prepare_metadata_launch() first");
  QSA_CUDA_TRY(detail::launch_metadata_staged_tiles<>(params, shape, stream, config.programmatic_launch), error);
  return Status::kOk;
}

}  // namespace qsa::cuda
