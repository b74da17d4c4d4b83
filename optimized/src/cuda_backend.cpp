#include "qsa/cuda/cuda_backend.hpp"

#include <algorithm>

#include "qsa/cuda/cuda_check.hpp"
#include "qsa/cuda/device.hpp"
#include "qsa/cuda/metadata_buffers.hpp"
#include "qsa/cuda/step_buffers.hpp"
#include "qsa/reference/metadata.hpp"
#include "qsa/validate.hpp"

namespace qsa::cuda {

struct CudaBackend::DeviceState {
  int device = -1;  // where the stream and buffers were made; -1 before the first call
  cudaStream_t stream = nullptr;
  std::unique_ptr<MetadataBuffers> buffers;
  std::unique_ptr<StepBuffers> step;

  ~DeviceState() {
    if (device >= 0) cudaSetDevice(device);  // free on the device they live on
    buffers.reset();
    step.reset();
    if (stream != nullptr) cudaStreamDestroy(stream);
  }
};

CudaBackend::CudaBackend()
    : CudaBackend("cuda", [](const MetadataDeviceArgs& args, cudaStream_t stream, Error* error) {
        return launch_metadata(args, stream, error);
      }) {}

CudaBackend::CudaBackend(std::string name, MetadataLauncher launcher, StepLauncher step_launcher)
    : name_(std::move(name)),
      launcher_(std::move(launcher)),
      step_launcher_(std::move(step_launcher)),
      device_(std::make_unique<DeviceState>()) {}

CudaBackend::~CudaBackend() = default;

Status CudaBackend::probe(std::string* reason) const { return probe_device(reason); }

// The stream and metadata buffers that fit `input` (created or grown on demand).
Status CudaBackend::prepare(const MetadataInput& input, Error* error) {
  const int64_t nr = input.batch.num_requests();  // validated: NR <= kMaxMetadataRequests (SPEC 1.3)
  DeviceState& d = *device_;
  if (d.stream == nullptr) {
    std::string reason;
    if (probe_device(&reason) != Status::kOk) {
      if (error != nullptr) *error = Error{"backend", -1, "unavailable", "cuda cannot run here: " + reason};
      return Status::kUnavailable;
    }
  }
  // The current device is per host thread: every call makes this instance's current before any
  // device work (after the host-side checks above, which need no device).
  QSA_CUDA_TRY(cudaSetDevice(device_ordinal_), error);
  if (d.stream == nullptr) {
    QSA_CUDA_TRY(cudaStreamCreateWithFlags(&d.stream, cudaStreamNonBlocking), error);
    d.device = device_ordinal_;
  }
  if (!d.buffers || !d.buffers->fits(input)) {
    // Grow geometrically so that a campaign of growing batches reallocates rarely.
    auto grow = [](int64_t have, int64_t need, int64_t floor) {
      return need <= have ? have : std::max({need, 2 * have, floor});
    };
    MetadataBuffers::Capacity capacity;
    if (d.buffers) capacity = d.buffers->capacity();
    capacity.max_tokens = std::min(kMaxTokens, grow(capacity.max_tokens, input.batch.num_actual_tokens, 1024));
    capacity.max_requests = std::min<int64_t>(kMaxMetadataRequests, grow(capacity.max_requests, nr, 256));
    capacity.max_table_elements =
        grow(capacity.max_table_elements, static_cast<int64_t>(input.block_table.storage.size()), 4096);
    d.buffers.reset();
    if (Status s = MetadataBuffers::create(capacity, d.stream, &d.buffers, error); s != Status::kOk) return s;
  }
  return Status::kOk;
}

Status CudaBackend::build_metadata(const MetadataInput& input, MetadataOutput* output, Error* error) {
  if (Status s = validate(input, error); s != Status::kOk) return s;
  if (Status s = prepare(input, error); s != Status::kOk) return s;
  DeviceState& d = *device_;
  MetadataDeviceArgs args;
  if (Status s = d.buffers->upload(input, d.stream, &args, error); s != Status::kOk) return s;
  if (Status s = d.buffers->poison_outputs(args, d.stream, error); s != Status::kOk) return s;
  if (Status s = launcher_(args, d.stream, error); s != Status::kOk) return s;
  if (Status s = d.buffers->download(args, d.stream, output, error); s != Status::kOk) return s;
  output->split = reference::split_decodes_and_prefills(input.batch);
  return Status::kOk;
}

Status CudaBackend::step_update(const StepInput& input, StepCaches* caches, StepOutput* output, Error* error) {
  if (Status s = validate_step(input, *caches, error); s != Status::kOk) return s;
  const MetadataInput compressed = input.compressed_metadata_input();
  if (Status s = prepare(compressed, error); s != Status::kOk) return s;
  DeviceState& d = *device_;
  if (!d.step) d.step = std::make_unique<StepBuffers>();
  // The k-work of the compressed group comes from the (production) metadata kernel, as in vLLM.
  // Everything is uploaded first, so that the two kernels run back to back (with PDL, overlapped);
  // the k-work is poisoned, so a step kernel that read it before the metadata kernel wrote it
  // would skip groups and differ from the reference.
  MetadataDeviceArgs metadata;
  if (Status s = d.buffers->upload(compressed, d.stream, &metadata, error); s != Status::kOk) return s;
  StepUpdateDeviceArgs args;
  if (Status s = d.step->upload(input, *caches, metadata, d.stream, &args, error); s != Status::kOk) return s;
  if (Status s = d.buffers->poison_outputs(metadata, d.stream, error); s != Status::kOk) return s;
  MetadataLaunchConfig config;
  config.programmatic_launch = programmatic_launch_;
  if (Status s = chain_metadata_launcher_(metadata, d.stream, error, config); s != Status::kOk) return s;
  args.programmatic_launch = programmatic_launch_;
  args.grid = step_grid_;
  if (Status s = step_launcher_(args, d.stream, error); s != Status::kOk) return s;
  return d.step->download(args, d.stream, caches, output, error);
}

}  // namespace qsa::cuda
