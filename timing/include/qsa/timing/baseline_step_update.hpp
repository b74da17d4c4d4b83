#pragma once
// The straightforward unfused step update the benchmark compares against, in the same run: three
// launches of one thread per element (block per row): group pooling (pool, norm, RoPE, store),
// then the ring commit, then the Q path. Bit-exact (SPEC 6), so it is verified like ours. Host header.

#include <cuda_runtime_api.h>

#include "qsa/cuda/step_update.hpp"
#include "qsa/status.hpp"

namespace qsa::timing {

[[nodiscard]] Status launch_baseline_step_update(const cuda::StepUpdateDeviceArgs& args, cudaStream_t stream,
                                                 Error* error);

/// The copy ceiling by a kernel: `bytes` (a multiple of 16; both addresses 16-byte aligned) from
/// `src` to `dst`, each thread moving four 16-byte vectors per pass, loads before stores,
/// grid-stride over at most 16 blocks per SM.
[[nodiscard]] Status launch_copy_kernel(const void* src, void* dst, size_t bytes, cudaStream_t stream, Error* error);

}  // namespace qsa::timing
