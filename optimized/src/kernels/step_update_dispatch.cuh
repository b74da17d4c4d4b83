#pragma once
// Launches step_update_row_teams_kernel<D, Policy> for the head dim of the arguments. The shipped
// launcher instantiates every D with StepPolicy; another policy may instantiate only the D it uses.

#include <cuda_runtime_api.h>

#include <algorithm>

#include "kernels/blocks_per_sm_cap.hpp"
#include "kernels/step_update_row_teams.cuh"
#include "qsa/cuda/cuda_check.hpp"
#include "qsa/cuda/kernel_path.hpp"
#include "step_update_args.hpp"

namespace qsa::cuda::detail {

// Per lane of a team, the axis of each of its elements' pairs (0 without MRoPE), 2 bits each.
template <int D, typename Policy>
void fill_lane_axes(StepParams& p) {
  using Shape = TeamShape<D>;
  static_assert(Shape::kLanes <= 32 && 2 * Shape::kElems <= 32, "one word per lane");
  const int hp = p.rotary_dim / 2;
  for (int lane = 0; lane < 32; ++lane) {
    uint32_t bits = 0;
    for (int i = 0; p.mrope && lane < Shape::kLanes && i < Shape::kElems; ++i) {
      const int d = lane * Shape::kElems + i;
      if (d < p.rotary_dim) bits |= static_cast<uint32_t>(Policy::mrope_axis(d < hp ? d : d - hp, p)) << (2 * i);
    }
    p.lane_axes[lane] = bits;
  }
}

// The latency grid (StepGrid::kLatency): 32-thread blocks, at least 20 of them per SM (at most 96
// registers), four members per load batch, the item blocks first: 0.3-0.5 us faster than the
// streaming grid at every decode shape, 6-18 % slower at prefill (docs/cuda-step-update.md, "Two grids").
inline constexpr int kLatencyThreads = 32;
inline constexpr int kLatencyMinBlocks = 20;
inline constexpr int kLatencyPoolBatch = 4;

// Launched with PDL, the latency grid's kernel holds at most kLatencyMinBlocks blocks per SM
// (unused dynamic shared memory sets the cap; its registers allow 24). At decode 1024 x 4 its 2 944
// blocks then take 1.1 waves, and the PDL launch is 2.2 % faster in bf16 and 8.9 % in fp8; the
// same cap would make a plain launch 12 % slower (docs/decisions.md, "Blocks per SM of the step
// kernel's latency grid with PDL"; why PDL gains is not measured). The streaming grid keeps its own bound.
template <int Threads>
inline constexpr int kPdlBlocksPerSmCap = Threads == kLatencyThreads ? kLatencyMinBlocks : 0;

// The dynamic shared bytes of a launch with PDL whose blocks (of `static_bytes` each) an SM should
// hold at most `cap` of (0: no cap).
inline Status pdl_cap_shared_bytes(int cap, size_t static_bytes, size_t* bytes, Error* error) {
  *bytes = 0;
  if (cap == 0) return Status::kOk;
  int device = 0;
  int per_sm = 0;
  int reserved = 0;
  QSA_CUDA_TRY(cudaGetDevice(&device), error);
  QSA_CUDA_TRY(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device), error);
  QSA_CUDA_TRY(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device), error);
  constexpr size_t kDefaultDynamicLimit = 48 * 1024;  // more needs an opt-in attribute
  *bytes = std::min(
      dynamic_bytes_capping_blocks(static_cast<size_t>(per_sm), static_cast<size_t>(reserved), static_bytes, cap),
      kDefaultDynamicLimit);
  return Status::kOk;
}

// Threads per block; items_span: the share of the grid, in percent from its start, among whose Q
// blocks the item blocks are spread (0: the item blocks lead the grid, as upstream's programs do;
// 100: spread over the whole grid).
template <int D, typename Policy, bool Fast, int H = kDefaultHeadsPerPass, int MinBlocks = kDefaultMinBlocks,
          int PoolBatch = kDefaultPoolBatch, bool GridControl = true, int Threads = kStepThreads, bool Halves = false,
          bool EarlyRingLoads = false>
Status launch_step_kernel(StepParams p, int items_span, cudaStream_t stream, Error* error) {
  constexpr int64_t teams = TeamShape<D>::template kTeamsPerBlock<Threads>;
  fill_lane_axes<D, Policy>(p);
  const int64_t item_blocks = (p.num_work_rows + teams - 1) / teams;
  const int64_t q_blocks = (p.num_tokens + teams - 1) / teams;  // one team per token row
  if (item_blocks + q_blocks == 0) return Status::kOk;
  if (item_blocks + q_blocks > 2147483647)
    return invalid(error, "num_tokens", -1, "launch-argument", "the grid would exceed 2^31 - 1 blocks");
  p.item_blocks = static_cast<int32_t>(item_blocks);
  // Item blocks (latency chains) spread among the Q blocks (streams of rows), every item_stride-th.
  // With a stride of 1 every block starts a period: blocks [0, item_blocks) run the items.
  const int64_t span_blocks = (item_blocks + q_blocks) * items_span / 100;
  p.item_stride = InvariantDivider::make(
      static_cast<uint32_t>(item_blocks > 0 ? std::max<int64_t>(1, span_blocks / item_blocks) : 1));
  const bool programmatic = GridControl && p.programmatic_launch;
  size_t shared_bytes = 0;
  if (programmatic) {
    const size_t scratch_bytes = sizeof(uint16_t) * teams * D;  // the kernel's only static shared array
    if (Status s = pdl_cap_shared_bytes(kPdlBlocksPerSmCap<Threads>, scratch_bytes, &shared_bytes, error);
        s != Status::kOk)
      return s;
  }
  QSA_CUDA_TRY(launch_kernel(step_update_row_teams_kernel<D, Policy, Fast, H, MinBlocks, PoolBatch, GridControl,
                                                          Threads, Halves, EarlyRingLoads>,
                             dim3(static_cast<unsigned>(item_blocks + q_blocks)), dim3(Threads), shared_bytes, stream,
                             programmatic, p),
               error);
  return Status::kOk;
}

// D = 512 keeps 16 elements per lane: fewer resident blocks, so that its chunks fit in registers.
template <int D, bool Fast>
inline constexpr int kMinBlocksFor = D >= 512 ? 3
                                     : Fast   ? kDefaultMinBlocks
                                              : kGenericMinBlocks;

// The latency grid loads phase B's first batch with phase A's members (item_unit), one memory
// latency fewer at decode; in the streaming grid's 64 registers it spills and is slower.
inline constexpr bool kLatencyEarlyRingLoads = true;
template <int D>
inline constexpr bool kHasLatencyGrid = D <= kLatencyGridMaxHeadDim;

// The fast streaming grid loads four members at once (no spill in its 64 registers) and spreads
// its item blocks over the whole grid at every size (-4.5 % at mixed, -1.2 % at 16 x 4096, +0.5 %
// at 2 x 4096 against two members with the items first up to 16384 rows; a shorter span is slower
// at 16 x 4096 and no faster elsewhere except 4 x 4096: docs/performance.md).
inline constexpr int kStreamingPoolBatch = 4;
inline constexpr int kStreamingItemsSpan = 100;

// The generic layout's streaming grid (two members at once) puts its item blocks first while the
// grid is a few waves (at most 16384 rows: about 2.4 waves of eight 128-thread blocks per SM on
// an H200), where the items' chains end the step; spread among the Q blocks on longer grids,
// where they would hold the first waves' slots (measured on the fast layout when it had two
// members: 15.15 against 15.44 µs at 4 × 4096, 52.19 against 49.19 at 16 × 4096).
inline constexpr int64_t kStreamingItemsFirstMaxTokens = 16384;
inline int streaming_items_span(const StepParams& p) { return p.num_tokens <= kStreamingItemsFirstMaxTokens ? 0 : 100; }

// Called for the fast layout of a D that has the latency grid.
inline bool wants_latency_grid(const StepParams& p, int head_dim, StepGrid grid) {
  return grid == StepGrid::kLatency || (grid == StepGrid::kAuto && latency_grid_takes(head_dim, true, p.num_tokens));
}

// The fast layout's two Q-path layouts: halves when rd == D/2 (step_q_halves.cuh), contiguous
// otherwise.
template <int D, typename Policy, int H, int MinBlocks, int PoolBatch, bool GridControl, int Threads,
          bool EarlyRingLoads = false>
Status launch_fast(const StepParams& p, int items_span, cudaStream_t stream, Error* error) {
  if (halves_q_layout(D, p.rotary_dim))
    return launch_step_kernel<D, Policy, true, H, MinBlocks, PoolBatch, GridControl, Threads, true, EarlyRingLoads>(
        p, items_span, stream, error);
  return launch_step_kernel<D, Policy, true, H, MinBlocks, PoolBatch, GridControl, Threads, false, EarlyRingLoads>(
      p, items_span, stream, error);
}

template <int D, typename Policy, bool Generic>
Status launch_for_layout(const StepParams& p, StepGrid grid, cudaStream_t stream, Error* error) {
  if constexpr (kHasLatencyGrid<D>) {
    if (fast_layout(p, D) && wants_latency_grid(p, D, grid))
      return launch_fast<D, Policy, kDefaultHeadsPerPass, kLatencyMinBlocks, kLatencyPoolBatch, true, kLatencyThreads,
                         kLatencyEarlyRingLoads>(p, /*items_span=*/0, stream, error);
  }
  if (fast_layout(p, D))
    return launch_fast<D, Policy, kDefaultHeadsPerPass, kMinBlocksFor<D, true>, kStreamingPoolBatch, true,
                       kStepThreads>(p, kStreamingItemsSpan, stream, error);
  if constexpr (Generic)
    return launch_step_kernel<D, Policy, false, kDefaultHeadsPerPass, kMinBlocksFor<D, false>>(
        p, streaming_items_span(p), stream, error);
  return invalid(error, "layout", -1, "launch-argument",
                 "this kernel instantiation is built for the fast layout only (aligned rows, rd/2 a power-of-two "
                 "multiple of the lane chunk)");
}

/// A tuning instantiation (benchmarks only): D = 128, the fast layout, H heads per pass, MinBlocks,
/// PoolBatch members loaded at once, with or without the PDL wait and trigger, Threads per block,
/// the share of the grid the item blocks are spread over (percent), the Q path's halves layout
/// when rd == D/2 or always contiguous, phase B's first batch loaded with the members or after
/// phase A (EarlyRingLoads).
template <int H, int MinBlocks, int PoolBatch, bool GridControl = true, int Threads = kStepThreads, int ItemsSpan = 100,
          bool HalvesWhenRdIsHalf = true, bool EarlyRingLoads = false>
Status launch_step_tuning(const StepUpdateDeviceArgs& args, cudaStream_t stream, Error* error) {
  if (Status s = check_step_args(args, error); s != Status::kOk) return s;
  const StepParams p = make_step_params(args);
  if (args.head_dim != 128 || !fast_layout(p, 128))
    return invalid(error, "head_dim", -1, "launch-argument", "tuning instantiations need D = 128, fast layout");
  if constexpr (HalvesWhenRdIsHalf)
    return launch_fast<128, StepPolicy, H, MinBlocks, PoolBatch, GridControl, Threads, EarlyRingLoads>(p, ItemsSpan,
                                                                                                       stream, error);
  return launch_step_kernel<128, StepPolicy, true, H, MinBlocks, PoolBatch, GridControl, Threads, false,
                            EarlyRingLoads>(p, ItemsSpan, stream, error);
}

/// Checks the arguments and launches for their D and layout. `Dims` lists the head dims this
/// instantiation was built for (another D gives kInvalidInput); `Generic` whether it has the element-
/// by-element instantiation for layouts that are not fast.
template <typename Policy, bool Generic, int... Dims>
Status dispatch_step_update(const StepUpdateDeviceArgs& args, cudaStream_t stream, Error* error) {
  if (Status s = check_step_args(args, error); s != Status::kOk) return s;
  const StepParams p = make_step_params(args);
  Status status = invalid(error, "head_dim", -1, "launch-argument",
                          "this kernel instantiation is not built for D = " + std::to_string(args.head_dim));
  const bool launched =
      ((args.head_dim == Dims ? (status = launch_for_layout<Dims, Policy, Generic>(p, args.grid, stream, error), true)
                              : false) ||
       ...);
  (void)launched;
  return status;
}

}  // namespace qsa::cuda::detail
