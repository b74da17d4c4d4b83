#pragma once
// What the benchmarks compare against, in the same binary and run: a straightforward baseline of
// the kind upstream uses, and the floor (an empty kernel launched the same way). Host header.

#include <cuda_runtime_api.h>

#include "qsa/cuda/metadata.hpp"
#include "qsa/status.hpp"

namespace qsa::bench {

/// The baseline metadata build, two launches: metadata_token_search_kernel (one thread per row, a
/// binary search over query_start_loc in global memory, then the SPEC 2 row outputs) and, for the
/// compressed kind, work_serial_prefix_kernel (one block: the n_j prefix in chunks of 256 requests,
/// each request writing its own items, then the (-1, -1) tail). Same arguments and results as
/// cuda::launch_metadata.
[[nodiscard]] Status launch_baseline_metadata(const cuda::MetadataDeviceArgs& args, cudaStream_t stream, Error* error);

/// empty_kernel<<<blocks, 256>>>: the floor of one launch (blocks = 1), and what a grid as large as
/// ours costs before any work (blocks > 1).
[[nodiscard]] Status launch_empty_kernel(cudaStream_t stream, int blocks, Error* error);

}  // namespace qsa::bench
