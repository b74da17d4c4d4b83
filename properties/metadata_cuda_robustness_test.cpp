// Robustness of the metadata launch: CUDA-graph replay, determinism, streams, the largest
// supported shapes, and the launch's own argument checks. Uses the device-level API directly.

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstring>
#include <memory>
#include <utility>

#include "qsa/cuda/cuda_backend.hpp"
#include "qsa/cuda/metadata.hpp"
#include "qsa/cuda/metadata_buffers.hpp"
#include "qsa/reference/metadata.hpp"
#include "qsa/traces/batch_generator.hpp"
#include "qsa/engine/check_engine.hpp"
#include "qsa/traces/rng.hpp"
#include "support/differential.hpp"
#include "support/gpu_guard.hpp"

namespace qsa {
namespace {

#define ASSERT_CUDA(call) ASSERT_EQ((call), cudaSuccess) << #call << ": " << cudaGetErrorString(cudaGetLastError())
#define ASSERT_OK(call, error) ASSERT_EQ((call), Status::kOk) << #call << ": " << (error)

// A step with NR requests over M <= N rows, request j asking for query_len(rng, j) rows (cut to
// leave token-only padding); seq_lens random above q_j, block ids random with some -1.
template <typename QueryLength>
MetadataInput generated_input(CacheKind kind, int64_t n, int64_t nr, uint64_t seed, QueryLength query_len) {
  traces::Rng rng(seed);
  MetadataInput in;
  in.cache.kind = kind;
  if (kind == CacheKind::kCompressed) {
    in.cache.compress_ratio = 4;
    in.cache.storage_block_size = 16;
  } else if (kind == CacheKind::kRing) {
    in.cache.ring_capacity = 8;
    in.cache.compress_ratio = 4;
  }
  const int64_t budget = n - n / 16;  // leave token-only padding
  in.batch.query_start_loc.push_back(0);
  int64_t max_seq = 0;
  for (int64_t j = 0; j < nr; ++j) {
    const int64_t q = std::min(budget - in.batch.query_start_loc.back(), query_len(rng, j));
    const int64_t seq = q + (rng.chance(1, 4) ? 0 : rng.range(0, 40000 * 1024 / std::max<int64_t>(nr, 1024)));
    in.batch.query_start_loc.push_back(in.batch.query_start_loc.back() + q);
    in.batch.seq_lens.push_back(seq);
    max_seq = std::max(max_seq, seq);
  }
  in.batch.num_actual_tokens = n;
  const int64_t m = in.batch.query_start_loc.back();
  for (int64_t t = 0; t < n; ++t)
    in.batch.common_slot_mapping.push_back(t < m && !rng.chance(1, 20) ? rng.range(0, 1 << 30) : -1);
  const int64_t cols = kind == CacheKind::kCompressed ? max_seq / 64 + 1 : 1;
  std::vector<std::vector<int32_t>> rows(static_cast<size_t>(nr), std::vector<int32_t>(static_cast<size_t>(cols)));
  for (auto& r : rows)
    for (auto& b : r) b = rng.chance(1, 30) ? -1 : static_cast<int32_t>(rng.range(0, 1 << 20));
  in.block_table = rng.chance(1, 2) ? BlockTable::column_major(rows) : BlockTable::from_rows(rows);
  return in;
}

// Decodes of 1 + 3 rows, a few long chunks, zero-length requests in the middle and padded
// requests at the tail.
MetadataInput large_input(CacheKind kind, int64_t n, int64_t nr, uint64_t seed) {
  return generated_input(kind, n, nr, seed, [n, nr](traces::Rng& rng, int64_t j) -> int64_t {
    return j >= nr - 8 ? 0 : rng.chance(1, 50) ? 0 : rng.chance(1, 20) ? rng.range(5, 2 * n / nr + 40) : 4;
  });
}

// Few requests (the warp-table path): long chunks, requests of 1 to 3 rows (so that one warp's 32
// rows cross several request boundaries) and zero-length requests.
MetadataInput few_requests_input(CacheKind kind, int64_t n, int64_t nr, uint64_t seed) {
  return generated_input(kind, n, nr, seed, [n, nr](traces::Rng& rng, int64_t /*j*/) -> int64_t {
    return rng.chance(1, 6) ? 0 : rng.chance(1, 3) ? rng.range(1, 3) : rng.range(4, 2 * n / nr);
  });
}

MetadataInput mixed_input(CacheKind kind, uint64_t seed) {
  traces::Rng rng(seed);
  return traces::random_metadata_input(rng, kind, 3000).input;
}

class DeviceFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    QSA_SKIP_WITHOUT_GPU();
    Error error;
    ASSERT_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    ASSERT_OK(cuda::MetadataBuffers::create(capacity_, stream_, &buffers_, &error), error);
  }
  void TearDown() override {
    buffers_.reset();
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }

  // Uploads, poisons, launches on `stream` and downloads; the split comes from the host.
  void run(const MetadataInput& in, cudaStream_t stream, MetadataOutput* out,
           const cuda::MetadataLaunchConfig& config = {}) {
    Error error;
    cuda::MetadataDeviceArgs args;
    ASSERT_OK(buffers_->upload(in, stream, &args, &error), error);
    ASSERT_OK(buffers_->poison_outputs(args, stream, &error), error);
    ASSERT_OK(cuda::launch_metadata(args, stream, &error, config), error);
    ASSERT_OK(buffers_->download(args, stream, out, &error), error);
    out->split = reference::split_decodes_and_prefills(in.batch);
  }

  // Captures one launch_metadata of `args` on stream_ and instantiates it.
  void capture(const cuda::MetadataDeviceArgs& args, cudaGraph_t* graph, cudaGraphExec_t* exec) {
    Error error;
    ASSERT_CUDA(cudaStreamSynchronize(stream_));
    ASSERT_CUDA(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal));
    const Status launched = cuda::launch_metadata(args, stream_, &error);
    ASSERT_CUDA(cudaStreamEndCapture(stream_, graph));
    ASSERT_OK(launched, error);
    ASSERT_CUDA(cudaGraphInstantiate(exec, *graph, 0));
  }

  // A new step's inputs in the buffers the graph was captured on (fixed N and NR), outputs
  // poisoned, the graph replayed: the reference's outputs.
  void replay_on_new_inputs(cudaGraphExec_t exec, const MetadataInput& next) {
    Error error;
    cuda::MetadataDeviceArgs args;
    ASSERT_OK(buffers_->upload(next, stream_, &args, &error), error);
    ASSERT_OK(buffers_->poison_outputs(args, stream_, &error), error);
    ASSERT_CUDA(cudaGraphLaunch(exec, stream_));
    MetadataOutput out;
    ASSERT_OK(buffers_->download(args, stream_, &out, &error), error);
    out.split = reference::split_decodes_and_prefills(next.batch);
    expect_equals_reference(next, out);
  }

  static void expect_equals_reference(const MetadataInput& in, const MetadataOutput& out) {
    const engine::MetadataRun expected = engine::reference_metadata(in);
    ASSERT_EQ(expected.status, Status::kOk) << expected.error;
    const engine::MetadataRun actual{Status::kOk, Error{}, out};
    const auto finding = engine::judge_metadata(in, actual, engine::MetadataChecks{true, &expected});
    EXPECT_FALSE(finding.has_value()) << finding->to_string();
  }

  cuda::MetadataBuffers::Capacity capacity_{1 << 16, cuda::kMaxStagedMetadataRequests, 1 << 22};
  std::unique_ptr<cuda::MetadataBuffers> buffers_;
  cudaStream_t stream_ = nullptr;
};

using MetadataCudaGraph = DeviceFixture;
using MetadataCudaDeterminism = DeviceFixture;
using MetadataCudaStreams = DeviceFixture;
using MetadataCudaLimits = DeviceFixture;
using MetadataCudaWarpTables = DeviceFixture;

// Buffers for SPEC 1.3's 2^20 requests (the workspace of the global-table path) and 4 rows each.
class MetadataCudaGlobalTables : public DeviceFixture {
 protected:
  MetadataCudaGlobalTables() {
    capacity_ = {4 * int64_t{cuda::kMaxMetadataRequests}, cuda::kMaxMetadataRequests, 1 << 22};
  }
};

TEST_F(MetadataCudaGraph, ReplayEqualsEagerLaunch) {
  for (CacheKind kind : {CacheKind::kCompressed, CacheKind::kRing, CacheKind::kPassthrough}) {
    SCOPED_TRACE(to_string(kind));
    const MetadataInput in = large_input(kind, 8192, 1024, 11);
    MetadataOutput eager;
    run(in, stream_, &eager);
    expect_equals_reference(in, eager);

    Error error;
    cuda::MetadataDeviceArgs args;
    ASSERT_OK(buffers_->upload(in, stream_, &args, &error), error);
    ASSERT_OK(buffers_->poison_outputs(args, stream_, &error), error);
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    ASSERT_NO_FATAL_FAILURE(capture(args, &graph, &exec));
    ASSERT_CUDA(cudaGraphLaunch(exec, stream_));
    MetadataOutput replayed;
    ASSERT_OK(buffers_->download(args, stream_, &replayed, &error), error);
    replayed.split = eager.split;
    EXPECT_EQ(replayed.token_to_req, eager.token_to_req);
    EXPECT_EQ(replayed.logical_positions, eager.logical_positions);
    EXPECT_EQ(replayed.visible_blocks, eager.visible_blocks);
    EXPECT_EQ(replayed.slot_mapping, eager.slot_mapping);
    EXPECT_EQ(replayed.k_work_metadata, eager.k_work_metadata);

    replay_on_new_inputs(exec, large_input(kind, 8192, 1024, 12));
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
  }
}

TEST_F(MetadataCudaDeterminism, TwoRunsGiveIdenticalBytes) {
  for (uint64_t seed = 0; seed < 30; ++seed) {
    const MetadataInput in = seed % 3 == 0 ? large_input(static_cast<CacheKind>(seed % 3), 16384, 2048, seed)
                                           : mixed_input(static_cast<CacheKind>(seed % 3), seed);
    MetadataOutput a;
    MetadataOutput b;
    run(in, stream_, &a);
    run(in, stream_, &b);
    ASSERT_EQ(a.token_to_req.size(), b.token_to_req.size());
    EXPECT_EQ(0, std::memcmp(a.token_to_req.data(), b.token_to_req.data(), a.token_to_req.size() * sizeof(int32_t)));
    EXPECT_EQ(0, std::memcmp(a.logical_positions.data(), b.logical_positions.data(),
                             a.logical_positions.size() * sizeof(int64_t)));
    EXPECT_EQ(0,
              std::memcmp(a.visible_blocks.data(), b.visible_blocks.data(), a.visible_blocks.size() * sizeof(int32_t)));
    EXPECT_EQ(0, std::memcmp(a.slot_mapping.data(), b.slot_mapping.data(), a.slot_mapping.size() * sizeof(int64_t)));
    EXPECT_EQ(a.k_work_metadata, b.k_work_metadata);
    expect_equals_reference(in, a);
  }
}

TEST_F(MetadataCudaStreams, NonDefaultAndLegacyStreamsGiveTheReference) {
  cudaStream_t blocking = nullptr;
  ASSERT_CUDA(cudaStreamCreate(&blocking));
  for (uint64_t seed = 0; seed < 12; ++seed) {
    const MetadataInput in = mixed_input(static_cast<CacheKind>(seed % 3), 100 + seed);
    MetadataOutput out;
    run(in, seed % 3 == 0 ? stream_ : seed % 3 == 1 ? blocking : cudaStreamLegacy, &out);
    expect_equals_reference(in, out);
  }
  cudaStreamDestroy(blocking);
}

TEST_F(MetadataCudaWarpTables, EveryTilingUpToTheWarpLimitMatchesTheReference) {
  // NR around kMaxWarpTableRequests, every kind, 128 and 256 threads a block, one to four rows (and
  // k-work rows) per thread: warps inside one long chunk, warps crossing many short requests (the
  // shuffle search), zero-length requests and padding rows. One row and one k-work row a thread
  // runs the kernels compiled for one row (kOneRow), every other pair the general ones. NR = 33 is
  // the staged path, for contrast (256 threads only). Plain and with PDL (the ring kind's tiles
  // then read their parameter block before the wait).
  const std::pair<int32_t, int32_t> per_thread_pairs[] = {{1, 1}, {1, 4}, {2, 3}, {4, 1}};
  for (const int64_t nr : {1, 2, 3, 16, 31, 32, 33}) {
    for (CacheKind kind : {CacheKind::kCompressed, CacheKind::kRing, CacheKind::kPassthrough}) {
      for (const int32_t threads : {128, 256}) {
        if (threads == 128 && nr > cuda::kMaxWarpTableRequests) continue;
        for (const auto& [rows, work_rows] : per_thread_pairs) {
          for (const bool programmatic : {false, true}) {
            SCOPED_TRACE(std::to_string(nr) + " requests, " + to_string(kind) + ", " + std::to_string(threads) +
                         " threads, " + std::to_string(rows) + " rows and " + std::to_string(work_rows) +
                         " k-work rows per thread" + (programmatic ? ", PDL" : ""));
            const MetadataInput in =
                few_requests_input(kind, 3000 + 701 * rows + 89 * work_rows, nr, 50 + static_cast<uint64_t>(nr));
            cuda::MetadataLaunchConfig config;
            config.threads = threads;
            config.rows_per_thread = rows;
            config.work_rows_per_thread = work_rows;
            config.programmatic_launch = programmatic;
            MetadataOutput out;
            run(in, stream_, &out, config);
            expect_equals_reference(in, out);
          }
        }
      }
    }
  }
}

TEST_F(MetadataCudaLimits, LargestShapesMatchTheReference) {
  // N = 65 536 rows with NR = 4096 requests for every kind, and NR = kMaxStagedMetadataRequests
  // (the shared-memory path above 48 KiB per block).
  for (CacheKind kind : {CacheKind::kCompressed, CacheKind::kRing, CacheKind::kPassthrough}) {
    SCOPED_TRACE(to_string(kind));
    const MetadataInput in = large_input(kind, 65536, 4096, 7);
    MetadataOutput out;
    run(in, stream_, &out);
    expect_equals_reference(in, out);
  }
  const MetadataInput widest = large_input(CacheKind::kCompressed, 65536, cuda::kMaxStagedMetadataRequests, 8);
  MetadataOutput out;
  run(widest, stream_, &out);
  expect_equals_reference(widest, out);
}

TEST_F(MetadataCudaGlobalTables, RequestsBeyondTheStagedLimitMatchTheReference) {
  // NR one past kMaxStagedMetadataRequests and SPEC 1.3's 2^20, every kind, ~4 rows per request
  // (zero-length requests inside and at the tail): the request table goes to the workspace and
  // the tiles search it in global memory (two launches).
  for (const int64_t nr : {int64_t{cuda::kMaxStagedMetadataRequests} + 1, int64_t{cuda::kMaxMetadataRequests}}) {
    for (CacheKind kind : {CacheKind::kCompressed, CacheKind::kRing, CacheKind::kPassthrough}) {
      SCOPED_TRACE(std::to_string(nr) + " requests, " + to_string(kind));
      const MetadataInput in = large_input(kind, 4 * nr, nr, 21 + static_cast<uint64_t>(kind));
      MetadataOutput out;
      run(in, stream_, &out);
      expect_equals_reference(in, out);
    }
  }
}

TEST_F(MetadataCudaGlobalTables, TwoLaunchesReplayInAGraphAndWithProgrammaticLaunch) {
  // The global-table path's two launches captured in one graph, replayed on a new step's inputs,
  // and launched with PDL (the tiles wait for the table block); both equal the reference.
  const int64_t nr = int64_t{cuda::kMaxStagedMetadataRequests} + 1;
  Error error;
  cuda::MetadataDeviceArgs args;
  const MetadataInput first = large_input(CacheKind::kCompressed, 4 * nr, nr, 31);
  ASSERT_OK(buffers_->upload(first, stream_, &args, &error), error);
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ASSERT_NO_FATAL_FAILURE(capture(args, &graph, &exec));
  replay_on_new_inputs(exec, large_input(CacheKind::kCompressed, 4 * nr, nr, 32));
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);

  // With PDL, the compressed kind and the ring kind (whose tiles then read their parameters
  // before the wait).
  cuda::MetadataLaunchConfig programmatic;
  programmatic.programmatic_launch = true;
  for (CacheKind kind : {CacheKind::kCompressed, CacheKind::kRing}) {
    SCOPED_TRACE(to_string(kind));
    const MetadataInput in = large_input(kind, 4 * nr, nr, 33 + static_cast<uint64_t>(kind));
    ASSERT_OK(buffers_->upload(in, stream_, &args, &error), error);
    ASSERT_OK(buffers_->poison_outputs(args, stream_, &error), error);
    ASSERT_OK(cuda::launch_metadata(args, stream_, &error, programmatic), error);
    MetadataOutput overlapped;
    ASSERT_OK(buffers_->download(args, stream_, &overlapped, &error), error);
    overlapped.split = reference::split_decodes_and_prefills(in.batch);
    expect_equals_reference(in, overlapped);
  }
}

TEST(MetadataCudaBackendLimits, RequestsBeyondTheStagedLimitRunOnTheDevice) {
  // The backend grows its buffers (workspace included) instead of declining.
  QSA_SKIP_WITHOUT_GPU();
  const int64_t nr = int64_t{cuda::kMaxStagedMetadataRequests} + 7;
  const MetadataInput in = large_input(CacheKind::kRing, 4 * nr, nr, 41);
  cuda::CudaBackend backend;
  MetadataOutput out;
  Error error;
  ASSERT_EQ(backend.build_metadata(in, &out, &error), Status::kOk) << error;
  const engine::MetadataRun expected = engine::reference_metadata(in);
  const auto finding = engine::judge_metadata(in, engine::MetadataRun{Status::kOk, Error{}, out},
                                              engine::MetadataChecks{true, &expected});
  EXPECT_FALSE(finding.has_value()) << finding->to_string();
}

// The backend puts all its device work on its own non-blocking stream. Work on the legacy default
// stream is not ordered with that stream: a zero fill there once landed after an upload under GPU
// contention (two processes on one GPU, docs/scale-out.md). While a blocking stream captures,
// the legacy stream refuses all work, so a backend call that used it fails here.
TEST(MetadataCudaBackendStreams, AFreshBackendLeavesTheLegacyDefaultStreamAlone) {
  QSA_SKIP_WITHOUT_GPU();
  cudaStream_t blocking = nullptr;
  ASSERT_CUDA(cudaStreamCreate(&blocking));
  void* scratch = nullptr;
  ASSERT_CUDA(cudaMalloc(&scratch, 64));
  // The detector first: during the capture a memset on the legacy stream is refused.
  cudaGraph_t graph = nullptr;
  ASSERT_CUDA(cudaStreamBeginCapture(blocking, cudaStreamCaptureModeRelaxed));
  const cudaError_t legacy = cudaMemset(scratch, 0, 64);
  cudaStreamEndCapture(blocking, &graph);  // invalidated by the refused memset, or empty
  if (graph != nullptr) cudaGraphDestroy(graph);
  cudaGetLastError();
  EXPECT_NE(legacy, cudaSuccess) << "the legacy stream should refuse work while a blocking stream captures";
  // A fresh backend inside the capture window: its stream, buffers, zero fill, uploads, launch and
  // downloads (a relaxed capture tolerates the allocations).
  const MetadataInput in = large_input(CacheKind::kCompressed, 4096, 512, 43);
  cuda::CudaBackend backend;
  MetadataOutput out;
  Error error;
  ASSERT_CUDA(cudaStreamBeginCapture(blocking, cudaStreamCaptureModeRelaxed));
  const Status status = backend.build_metadata(in, &out, &error);
  graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(blocking, &graph);
  if (graph != nullptr) cudaGraphDestroy(graph);
  cudaFree(scratch);
  cudaStreamDestroy(blocking);
  ASSERT_EQ(status, Status::kOk) << error;
  EXPECT_EQ(ended, cudaSuccess) << cudaGetErrorString(ended);
  const engine::MetadataRun expected = engine::reference_metadata(in);
  const auto finding = engine::judge_metadata(in, engine::MetadataRun{Status::kOk, Error{}, out},
                                              engine::MetadataChecks{true, &expected});
  EXPECT_FALSE(finding.has_value()) << finding->to_string();
}

TEST(MetadataCudaLaunch, PlansTheRequestTableFromTheRequestCountAndBlockSize) {
  // Host only: the plan's choice of table, and no shared memory unless the table is staged.
  static int32_t fake[8];
  cuda::MetadataDeviceArgs args;
  args.kind = CacheKind::kRing;
  args.ring_capacity = 8;
  args.builder_ratio = 4;
  args.query_start_loc = fake;
  args.seq_lens = fake;
  args.num_tokens = 8192;
  args.token_to_req = fake;
  args.logical_positions = reinterpret_cast<int64_t*>(fake);
  args.visible_blocks = fake;
  args.slot_mapping = reinterpret_cast<int64_t*>(fake);
  args.request_workspace = fake;
  const auto plan = [&](int32_t nr, int32_t threads) {
    args.num_requests = nr;
    cuda::MetadataLaunchConfig config;
    config.threads = threads;
    return cuda::metadata_launch_shape(args, config);
  };
  using cuda::MetadataRequestTable;
  for (const int32_t nr : {1, cuda::kMaxWarpTableRequests}) {
    EXPECT_EQ(plan(nr, 0).request_table, MetadataRequestTable::kWarpRegisters) << nr;
    EXPECT_EQ(plan(nr, 0).shared_bytes, 0u) << nr;
    EXPECT_EQ(plan(nr, 256).request_table, MetadataRequestTable::kWarpRegisters) << nr;
    EXPECT_EQ(plan(nr, 512).request_table, MetadataRequestTable::kSharedPerBlock) << nr;
  }
  // The warp table runs 128 threads a block up to 8192 rows, 256 above; 128 needs the warp table.
  EXPECT_EQ(plan(1, 0).threads, 128);
  EXPECT_EQ(plan(1, 0).row_blocks, 8192 / 128);
  args.num_tokens = 8193;
  EXPECT_EQ(plan(1, 0).threads, 256);
  EXPECT_EQ(plan(cuda::kMaxWarpTableRequests + 1, 0).threads, 256);
  EXPECT_EQ(plan(cuda::kMaxWarpTableRequests + 1, 128).threads, 0) << "128 threads with a staged table";
  args.num_tokens = 8192;
  EXPECT_EQ(plan(cuda::kMaxWarpTableRequests + 1, 0).request_table, MetadataRequestTable::kSharedPerBlock);
  EXPECT_GT(plan(cuda::kMaxWarpTableRequests + 1, 0).shared_bytes, 0u);
  EXPECT_EQ(plan(cuda::kMaxStagedMetadataRequests, 0).request_table, MetadataRequestTable::kSharedPerBlock);
  EXPECT_EQ(plan(cuda::kMaxStagedMetadataRequests + 1, 0).request_table, MetadataRequestTable::kGlobalWorkspace);
  EXPECT_EQ(plan(cuda::kMaxStagedMetadataRequests + 1, 0).shared_bytes, 0u);
}

TEST(MetadataCudaLaunch, RejectsBadLaunchArgumentsBeforeTouchingTheDevice) {
  // Host-side argument checks only: no device is needed, nothing is launched.
  cuda::MetadataDeviceArgs args;
  Error error;
  args.num_requests = 0;
  EXPECT_EQ(cuda::launch_metadata(args, nullptr, &error), Status::kInvalidInput);
  EXPECT_EQ(error.field, "num_requests");
  args.num_requests = cuda::kMaxMetadataRequests + 1;  // beyond SPEC 1.3
  EXPECT_EQ(cuda::launch_metadata(args, nullptr, &error), Status::kInvalidInput);
  EXPECT_EQ(error.field, "num_requests");
  EXPECT_EQ(error.rule, "out-of-range");
  args.num_requests = 2;
  args.kind = CacheKind::kCompressed;
  args.compress_ratio = 4;
  args.storage_block_size = 16;
  EXPECT_EQ(cuda::launch_metadata(args, nullptr, &error), Status::kInvalidInput);
  EXPECT_EQ(error.field, "query_start_loc");
  EXPECT_EQ(error.rule, "null-pointer");
  static int32_t fake[8];
  args.query_start_loc = fake;
  args.seq_lens = fake;
  args.num_tokens = 4;
  args.common_slot_mapping = reinterpret_cast<const int64_t*>(fake);
  args.token_to_req = fake;
  args.logical_positions = reinterpret_cast<int64_t*>(fake);
  args.visible_blocks = fake;
  args.slot_mapping = reinterpret_cast<int64_t*>(fake);
  args.k_work_metadata = fake + 1;  // 4-byte aligned only
  EXPECT_EQ(cuda::launch_metadata(args, nullptr, &error), Status::kInvalidInput);
  EXPECT_EQ(error.rule, "misaligned");
  args.k_work_metadata = fake;
  args.num_requests = cuda::kMaxStagedMetadataRequests + 1;  // the global-table path needs its workspace
  EXPECT_EQ(cuda::launch_metadata(args, nullptr, &error), Status::kInvalidInput);
  EXPECT_EQ(error.field, "request_workspace");
  EXPECT_EQ(error.rule, "null-pointer");
  args.request_workspace = fake;
  cuda::MetadataLaunchConfig wide_blocks;
  wide_blocks.threads = 512;  // the global-table tiles run 256 threads per block only
  EXPECT_EQ(cuda::launch_metadata(args, nullptr, &error, wide_blocks), Status::kInvalidInput);
  EXPECT_EQ(error.field, "threads");
  EXPECT_EQ(error.rule, "out-of-range");
  args.num_requests = cuda::kMaxWarpTableRequests + 1;
  cuda::MetadataLaunchConfig narrow_blocks;
  narrow_blocks.threads = 128;  // the warp table's block size only
  EXPECT_EQ(cuda::launch_metadata(args, nullptr, &error, narrow_blocks), Status::kInvalidInput);
  EXPECT_EQ(error.field, "threads");
  EXPECT_NE(error.message.find("warp table"), std::string::npos) << error.message;
  args.num_requests = cuda::kMaxStagedMetadataRequests + 1;
  EXPECT_EQ(cuda::metadata_workspace_elements(cuda::kMaxStagedMetadataRequests), 0);
  EXPECT_EQ(cuda::metadata_workspace_elements(args.num_requests), 3 * int64_t{args.num_requests} + 1);
}

}  // namespace
}  // namespace qsa
