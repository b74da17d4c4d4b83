#include "qsa/backends/cuda_device_step.hpp"

#include <algorithm>

#include "qsa/cuda/cuda_check.hpp"
#include "qsa/validate.hpp"

namespace qsa::backends {

CudaDeviceStep::~CudaDeviceStep() = default;

Status CudaDeviceStep::create(const StepInput& input, const StepCaches& caches, int64_t sets,
                              cuda::StepLauncher launcher, std::unique_ptr<CudaDeviceStep>* out, Error* error) {
  if (Status s = validate_step(input, caches, error); s != Status::kOk) return s;
  std::unique_ptr<CudaDeviceStep> step(new CudaDeviceStep());
  step->launcher_ = std::move(launcher);
  cudaStream_t stream = nullptr;
  QSA_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), error);
  // The stream goes on every path out; uploads are synchronized before it does.
  struct StreamGuard {
    cudaStream_t s;
    ~StreamGuard() {
      cudaStreamSynchronize(s);
      cudaStreamDestroy(s);
    }
  } guard{stream};
  const MetadataInput compressed = input.compressed_metadata_input();
  const cuda::MetadataBuffers::Capacity capacity{input.batch.num_actual_tokens, input.batch.num_requests(),
                                                 static_cast<int64_t>(input.block_table.storage.size())};
  if (Status s = cuda::MetadataBuffers::create(capacity, stream, &step->metadata_, error); s != Status::kOk) return s;
  if (Status s = step->metadata_->upload(compressed, stream, &step->metadata_args_, error); s != Status::kOk) return s;
  if (Status s = cuda::launch_metadata(step->metadata_args_, stream, error); s != Status::kOk) return s;
  for (int64_t i = 0; i < std::max<int64_t>(sets, 1); ++i) {
    step->sets_.push_back(std::make_unique<cuda::StepBuffers>());
    step->args_.emplace_back();
    cuda::StepUpdateDeviceArgs& args = step->args_.back();
    if (Status s = step->sets_.back()->upload(input, caches, step->metadata_args_, stream, &args, error);
        s != Status::kOk)
      return s;
    if (i == 0) continue;
    const cuda::StepUpdateDeviceArgs& first = step->args_.front();
    args.ring = first.ring;
    args.compressed = first.compressed;
    args.cos_sin = first.cos_sin;
    args.w_k = first.w_k;
    args.w_q = first.w_q;
    args.ring_block_table = first.ring_block_table;
  }
  QSA_CUDA_TRY(cudaStreamSynchronize(stream), error);
  *out = std::move(step);
  return Status::kOk;
}

Status CudaDeviceStep::enqueue(void* stream, int64_t set, Error* error) {
  return launcher_(args(set), static_cast<cudaStream_t>(stream), error);
}

Status CudaDeviceStep::download(cudaStream_t stream, StepCaches* caches, StepOutput* output, Error* error) {
  return sets_.front()->download(args_.front(), stream, caches, output, error);
}

}  // namespace qsa::backends
