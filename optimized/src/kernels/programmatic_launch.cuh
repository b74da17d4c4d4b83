#pragma once
// Programmatic dependent launch (PDL, sm_90): a kernel launched with the attribute may start while
// the previous kernel on its stream is still running, so its prologue (parameters, constant
// weights) overlaps that kernel's tail. Both kernels of this library:
//
//  * call wait_for_previous_grid() in every thread before the first read of anything a previous
//    kernel may have written (the batch, q, k, the caches, the metadata). griddepcontrol.wait
//    returns once every prerequisite grid has completed and its memory is visible, so it also
//    orders this kernel's writes after the previous kernel's reads of the same memory;
//  * call allow_next_grid() once per block right after that wait. The trigger only lets the next
//    kernel be scheduled; it publishes nothing, since the next kernel's own wait still waits for
//    this grid's completion. Every block waits unconditionally, so the ordering is transitive along
//    a chain of PDL launches (a kernel never completes before the one it depends on).
//
// Without the attribute (a plain launch) both instructions return at once.

#include <cuda_runtime.h>

#include <cstdint>

#include <utility>

namespace qsa::cuda::detail {

__device__ __forceinline__ void wait_for_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void allow_next_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/// Reads one word of every 32 bytes of the kernel's parameter block (of its first `kBytes` when
/// given: the fields the kernel reads) and branches on their mix, so that the constant-cache lines
/// holding them are filled before wait_for_previous_grid().
/// ptxas reads a parameter where it is used, after the wait, and drops a read nothing needs; a
/// kernel launched with PDL then takes its constant-cache misses one after another once the wait
/// returns, where here they overlap the previous kernel. A plain launch would pay every line's
/// miss before its first load instead (measured 2-8 % slower plain): call it only
/// when launched with PDL. `params` must be the kernel's __grid_constant__ parameter (taking the
/// address of any other parameter copies it to local memory). The fence orders nothing the
/// kernel relies on; it only makes the reads necessary, and runs when the mix is zero.
template <size_t kBytes = 0, typename Params>
__device__ __forceinline__ void warm_parameter_cache(const Params& params) {
  constexpr size_t kWords = (kBytes == 0 ? sizeof(Params) : kBytes) / sizeof(uint32_t);
  static_assert(kWords * sizeof(uint32_t) <= sizeof(Params), "inside the parameter block");
  const auto* words = reinterpret_cast<const uint32_t*>(&params);
  uint32_t mix = 0;
#pragma unroll
  for (size_t k = 0; k < kWords; k += 8) mix ^= words[k];
  if (mix == 0u) __threadfence_block();
}

/// Launches `kernel` on `stream`, with the programmatic-stream-serialization attribute when
/// `programmatic` is set (a plain launch otherwise). Capturable in a CUDA graph either way.
template <typename... Params, typename... Args>
cudaError_t launch_kernel(void (*kernel)(Params...), dim3 grid, dim3 block, size_t shared_bytes, cudaStream_t stream,
                          bool programmatic, Args&&... args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  config.attrs = programmatic ? &attribute : nullptr;
  config.numAttrs = programmatic ? 1 : 0;
  return cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

}  // namespace qsa::cuda::detail
