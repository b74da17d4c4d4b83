// The shipped step-update launcher (every head dim, StepPolicy) and the device's SPEC 6
// conversions exposed for exhaustive tests.

#include <vector>

#include "kernels/step_update_arithmetic.cuh"
#include "kernels/step_update_dispatch.cuh"
#include "qsa/cuda/step_update.hpp"

namespace qsa::cuda {

Status launch_step_update(const StepUpdateDeviceArgs& args, cudaStream_t stream, Error* error) {
  return detail::dispatch_step_update<detail::StepPolicy, /*Generic=*/true, 32, 64, 128, 256, 512>(args, stream, error);
}

namespace {

// The e4m3 pair conversion of the kernel's stores, the pattern in the low lane and its negation in
// the high lane (so a swap of the lanes shows too).
__global__ void convert_kernel(const uint32_t* in, int64_t n, uint16_t* bf16_out, uint16_t* e4m3_out) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  bf16_out[i] = detail::float_to_bf16(__uint_as_float(in[i]));
  const uint32_t pattern = in[i] >> 16;
  e4m3_out[i] = detail::bf16x2_to_e4m3x2(pattern | (pattern ^ 0x8000u) << 16);
}

}  // namespace

Status convert_on_device(const std::vector<uint32_t>& bits, std::vector<uint16_t>* bf16, std::vector<uint8_t>* e4m3,
                         Error* error) {
  const auto n = static_cast<int64_t>(bits.size());
  uint32_t* d_in = nullptr;
  uint16_t* d_bf16 = nullptr;
  uint16_t* d_e4m3 = nullptr;
  const size_t count = static_cast<size_t>(n > 0 ? n : 1);
  auto release = [&] {
    cudaFree(d_in);
    cudaFree(d_bf16);
    cudaFree(d_e4m3);
  };
  cudaError_t code = cudaMalloc(&d_in, count * sizeof(uint32_t));
  if (code == cudaSuccess) code = cudaMalloc(&d_bf16, count * sizeof(uint16_t));
  if (code == cudaSuccess) code = cudaMalloc(&d_e4m3, 2 * count);
  if (code == cudaSuccess && n > 0)
    code = cudaMemcpy(d_in, bits.data(), bits.size() * sizeof(uint32_t), cudaMemcpyHostToDevice);
  if (code == cudaSuccess && n > 0) {
    convert_kernel<<<static_cast<unsigned>((n + 255) / 256), 256>>>(d_in, n, d_bf16, d_e4m3);
    code = cudaGetLastError();
  }
  bf16->resize(bits.size());
  e4m3->resize(2 * bits.size());
  if (code == cudaSuccess && n > 0)
    code = cudaMemcpy(bf16->data(), d_bf16, bits.size() * sizeof(uint16_t), cudaMemcpyDeviceToHost);
  if (code == cudaSuccess && n > 0) code = cudaMemcpy(e4m3->data(), d_e4m3, 2 * bits.size(), cudaMemcpyDeviceToHost);
  release();
  if (code != cudaSuccess) return device_error(code, "convert_on_device", error);
  return Status::kOk;
}

}  // namespace qsa::cuda
