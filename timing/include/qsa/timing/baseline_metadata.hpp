#pragma once
// What the benchmarks compare against, in the same binary and run: a straightforward baseline of
// the kind upstream uses, and the floor (an empty kernel launched the same way). Host header.

#include <cuda_runtime_api.h>

#include "qsa/cuda/metadata.hpp"
#include "qsa/status.hpp"

namespace qsa::timing {

/// The baseline metadata build, two launches: metadata_token_search_kernel (one thread per row, a
/// binary search over query_start_loc in global memory, then the SPEC 2 row outputs) and, for the
/// compressed kind, work_serial_prefix_kernel (one block: the n_j prefix in chunks of 256 requests,
/// each request writing its own items, then the (-1, -1) tail). Same arguments and results as
/// cuda::launch_metadata.
[[nodiscard]] Status launch_baseline_metadata(const cuda::MetadataDeviceArgs& args, cudaStream_t stream, Error* error);

/// empty_kernel<<<blocks, 256>>>: the floor of one launch (blocks = 1), and what a grid as large as
/// ours costs before any work (blocks > 1).
[[nodiscard]] Status launch_empty_kernel(cudaStream_t stream, int blocks, Error* error);

/// The latency ladder: `blocks` x 256 threads, each following `depth` dependent loads through a
/// table kept in device memory (L2-resident after the first replay) and storing the result. Depth
/// 0 reads only its parameters and stores. Measures what a chain of k dependent global round trips
/// costs per launch on this device, the structure every metadata kernel has (parameters, then
/// query_start_loc and seq_lens, then, compressed kind, the block table). `programmatic`: launched
/// with PDL, waiting before the first load as our kernels do, so that a launch's prologue overlaps
/// the previous one's tail (the bound of the PDL figures).
class DependentLoadLadder {
 public:
  DependentLoadLadder() = default;
  ~DependentLoadLadder();
  DependentLoadLadder(const DependentLoadLadder&) = delete;
  DependentLoadLadder& operator=(const DependentLoadLadder&) = delete;

  /// Allocates and fills the table (a permutation that moves every load to another cache line).
  [[nodiscard]] Status create(Error* error);
  [[nodiscard]] Status launch(cudaStream_t stream, int depth, int blocks, bool programmatic, Error* error) const;

 private:
  int32_t* table_ = nullptr;  // [kLadderEntries] next index to load
  int32_t* out_ = nullptr;    // [blocks * 256]
};

}  // namespace qsa::timing
