#include "qsa/timing/graph_replay_timer.hpp"

#include "qsa/cuda/cuda_check.hpp"

namespace qsa::timing {

GraphReplayTimer::~GraphReplayTimer() {
  if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
  if (graph_ != nullptr) cudaGraphDestroy(graph_);
  if (start_ != nullptr) cudaEventDestroy(start_);
  if (stop_ != nullptr) cudaEventDestroy(stop_);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

Status GraphReplayTimer::stream(cudaStream_t* stream, Error* error) {
  if (stream_ == nullptr) QSA_CUDA_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), error);
  *stream = stream_;
  return Status::kOk;
}

Status GraphReplayTimer::capture(int launches, const std::function<Status(cudaStream_t)>& enqueue, Error* error) {
  cudaStream_t s = nullptr;
  if (Status st = stream(&s, error); st != Status::kOk) return st;
  if (start_ == nullptr) QSA_CUDA_TRY(cudaEventCreate(&start_), error);
  if (stop_ == nullptr) QSA_CUDA_TRY(cudaEventCreate(&stop_), error);
  QSA_CUDA_TRY(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), error);
  Status enqueued = Status::kOk;
  for (int i = 0; i < launches && enqueued == Status::kOk; ++i) enqueued = enqueue(s);
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(s, &graph);
  if (enqueued != Status::kOk) {
    if (graph != nullptr) cudaGraphDestroy(graph);
    return enqueued;
  }
  QSA_CUDA_TRY(ended, error);
  graph_ = graph;
  QSA_CUDA_TRY(cudaGraphInstantiate(&exec_, graph_, 0), error);
  launches_ = launches;
  QSA_CUDA_TRY(cudaGraphLaunch(exec_, s), error);
  QSA_CUDA_TRY(cudaStreamSynchronize(s), error);
  return Status::kOk;
}

Status GraphReplayTimer::replay(double* seconds_per_launch, Error* error) {
  QSA_CUDA_TRY(cudaEventRecord(start_, stream_), error);
  QSA_CUDA_TRY(cudaGraphLaunch(exec_, stream_), error);
  QSA_CUDA_TRY(cudaEventRecord(stop_, stream_), error);
  QSA_CUDA_TRY(cudaEventSynchronize(stop_), error);
  float ms = 0;
  QSA_CUDA_TRY(cudaEventElapsedTime(&ms, start_, stop_), error);
  *seconds_per_launch = static_cast<double>(ms) * 1e-3 / launches_;
  return Status::kOk;
}

}  // namespace qsa::timing
