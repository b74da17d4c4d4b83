#pragma once
// metadata_staged_tiles_kernel: the whole SPEC 2 metadata of one step in one launch.
//
// Algorithm. The grid has two kinds of blocks, chosen by blockIdx.x (uniform per block):
//
//  * Work tiles (blocks [0, work_blocks), compressed kind only): block b owns k-work rows
//    [b·WT, (b+1)·WT). It stages query_start_loc and seq_lens in shared memory, computes
//    n_j = (q_j == 0 ? 0 : max(1, e_j/C - s_j/C)) and their exclusive prefix over all NR requests
//    with a block-wide scan (each thread owns a contiguous run of requests; warp shuffles, then
//    one shared array of warp totals). While writing the prefix, the owner of each request marks
//    which request covers every 32nd work row of the tile (a search hint). Work row r < sum(n_j)
//    then finds its request by a binary search between two neighbouring hints and writes
//    (j, r - prefix_j); rows past the sum get (-1, -1).
//  * Row tiles (the remaining blocks): block b owns rows [b·RT, (b+1)·RT). It stages
//    query_start_loc, the chunk starts s_j = e_j - q_j and (ring kind) each request's ring block,
//    and marks the request that covers every 32nd row of the tile. Row t < M then finds
//    token_to_req by a binary search between two neighbouring hints (the largest j with
//    qsl[j] <= t, so a zero-length request is never chosen), and writes its position,
//    visible_blocks and slot; rows t >= M get the padding values.
//
// Every block redundantly stages the request table (O(NR) loads per block, from L2): no block
// waits for another, so the launch has no inter-block dependency, no global workspace and no
// host synchronisation; it is capturable in a CUDA graph. The common slot of every row is loaded
// before the request table arrives, so a row waits on at most two dependent loads (the request
// table, then, compressed kind only, its block-table entry). All arithmetic is integer.
//
// The table's place is the template parameter MetadataRequestTable (chosen by the plan):
//
//  * kWarpRegisters, NR <= kMaxWarpTableRequests (the prefill shapes): no staging at all. Every
//    warp loads the table into its lanes (metadata_warp_table.cuh) and finds a row's request with
//    ballots and shuffles, so no block barrier, no hints and no shared memory.
//  * kSharedPerBlock, up to kMaxStagedMetadataRequests: staged per block as described above.
//  * kGlobalWorkspace, above that: the table no longer fits a block's shared memory, and staging
//    it per block would cost O(NR) per block anyway. metadata_request_tables_kernel (one block)
//    first writes the chunk starts, ring blocks and the k-work prefix into a workspace, and the
//    tiles search it and query_start_loc in global memory over all NR requests, without hints.
//
// The three share every line that computes an output from a found request.
//
// Template parameters: the policy (metadata_policy.cuh; the shipped launcher instantiates
// MetadataPolicy only), the block size, the table's place, the cache kind (so that
// each kind's tiles carry only their own code, and take their kind's parameter block,
// TileParams: metadata_params.hpp), kOneRow (one row and one k-work row a thread,
// so that the loops over up to four rows and their guards go) and kWarmParameters (the
// parameter block read before the PDL wait: the ring kind's launches with PDL).

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/invariant_divider.hpp"
#include "kernels/metadata_params.hpp"
#include "kernels/metadata_policy.cuh"
#include "kernels/metadata_warp_table.cuh"
#include "kernels/programmatic_launch.cuh"
#include "qsa/cuda/metadata.hpp"

namespace qsa::cuda::detail {

/// Records `owner` as the search hint of every chunk start tile_begin + 32k (k in [0, chunks])
/// that lies in [begin, end).
__device__ __forceinline__ void mark_chunk_starts(int32_t* hints, int32_t chunks, int32_t tile_begin, int32_t begin,
                                                  int32_t end, int32_t owner) {
  if (end <= begin || end <= tile_begin) return;
  const int32_t first = begin <= tile_begin ? 0 : (begin - tile_begin + kChunkRows - 1) / kChunkRows;
  const int32_t last = min(chunks, (end - 1 - tile_begin) / kChunkRows);
  for (int32_t k = first; k <= last; ++k) hints[k] = owner;
}

/// Largest j in [lo, hi] with keys[j] <= value, given keys[lo] <= value and keys non-decreasing.
template <bool kStrict>
__device__ __forceinline__ int32_t search_last_at_most(const int32_t* keys, int32_t lo, int32_t hi, int32_t value) {
  while (lo < hi) {
    const int32_t mid = (lo + hi + 1) >> 1;
    const bool inside = kStrict ? keys[mid] < value : keys[mid] <= value;
    if (inside)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/// Stages n_j of every request in prefix_s, replaces them by their exclusive prefix, marks the
/// request owning every 32nd work row of the tile in `hints`, and returns sum(n_j).
template <typename Policy, int kThreads>
__device__ int32_t stage_work_prefix(const MetadataParams& p, int32_t* prefix_s, int32_t* hints, int32_t* warp_totals,
                                     int32_t tile_begin, int32_t chunks) {
  const int32_t nr = p.num_requests;
  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid & 31;
  const int warp = tid >> 5;

  // n_j of every request (coalesced loads, all of a batch issued before the first use).
  for (int32_t base = 0; base < nr; base += kStageBatch * kThreads) {
    int32_t begin[kStageBatch];
    int32_t end[kStageBatch];
    int32_t seq_len[kStageBatch];
#pragma unroll
    for (int u = 0; u < kStageBatch; ++u) {
      const int32_t j = base + u * kThreads + tid;
      if (j < nr) {
        begin[u] = __ldg(p.query_start_loc + j);
        end[u] = __ldg(p.query_start_loc + j + 1);
        seq_len[u] = __ldg(p.seq_lens + j);
      }
    }
#pragma unroll
    for (int u = 0; u < kStageBatch; ++u) {
      const int32_t j = base + u * kThreads + tid;
      if (j < nr) prefix_s[j] = Policy::work_items(begin[u], end[u], seq_len[u], p.compress_ratio);
    }
  }
  __syncthreads();

  // Exclusive prefix of n_j: thread tid owns requests [run_begin, run_end).
  const int32_t per_thread = (nr + kThreads - 1) / kThreads;
  const int32_t run_begin = min(nr, tid * per_thread);
  const int32_t run_end = min(nr, run_begin + per_thread);
  int32_t local = 0;
  for (int32_t j = run_begin; j < run_end; ++j) local += prefix_s[j];
  const int32_t inclusive = warp_inclusive_sum(local);
  if (lane == 31) warp_totals[warp] = inclusive;
  Policy::warp_totals_barrier();
  int32_t offset = inclusive - local;
  int32_t total = 0;
#pragma unroll
  for (int w = 0; w < kThreads / 32; ++w) {
    const int32_t warp_total = warp_totals[w];
    total += warp_total;
    if (w < warp) offset += warp_total;
  }
  for (int32_t j = run_begin; j < run_end; ++j) {
    const int32_t n = prefix_s[j];
    prefix_s[j] = offset;
    mark_chunk_starts(hints, chunks, tile_begin, offset, offset + n, j);
    offset += n;
  }
  __syncthreads();
  return total;
}

/// The k-work table of NR <= kMaxWarpTableRequests requests in the warp's lanes (warp-collective).
template <typename Policy>
__device__ WarpWorkTable load_warp_work_table(const MetadataParams& p) {
  const int32_t nr = p.num_requests;
  const int32_t j = static_cast<int32_t>(threadIdx.x) & 31;
  int32_t work = 0;
  if (j < nr)
    work = Policy::work_items(__ldg(p.query_start_loc + j), __ldg(p.query_start_loc + j + 1), __ldg(p.seq_lens + j),
                              p.compress_ratio);
  return warp_work_table(work, nr);
}

template <typename Policy, int kThreads, MetadataRequestTable kTable, bool kOneRow>
__device__ void build_work_tile(const MetadataParams& p, int32_t* shared, int32_t tile) {
  constexpr int kRowsMax = kOneRow ? 1 : kMaxWorkRowsPerThread;
  const int32_t rows_per_thread = kOneRow ? 1 : p.work_rows_per_thread;
  constexpr bool kStaged = kTable == MetadataRequestTable::kSharedPerBlock;
  constexpr bool kWarp = kTable == MetadataRequestTable::kWarpRegisters;
  const int32_t nr = p.num_requests;
  const int32_t tile_rows = kThreads * rows_per_thread;
  const int32_t chunks = tile_rows / kChunkRows;
  const int32_t tile_begin = tile * tile_rows;
  int32_t* hints = shared + nr;  // staged: [chunks + 1] request owning work row tile_begin + 32k
  const int32_t* prefix = kStaged ? shared : p.request_tables + 2 * nr;  // [nr] exclusive prefix of n_j
  [[maybe_unused]] const WarpWorkTable lanes = kWarp ? load_warp_work_table<Policy>(p) : WarpWorkTable{};
  const int32_t total =
      kWarp     ? lanes.total
      : kStaged ? stage_work_prefix<Policy, kThreads>(p, shared, hints, hints + chunks + 1, tile_begin, chunks)
                : p.request_tables[3 * nr];
  const int tid = static_cast<int>(threadIdx.x);

  // Work rows: (j, r - prefix_j) below the total, (-1, -1) after it.
  int2* out = reinterpret_cast<int2*>(p.k_work_metadata);
#pragma unroll
  for (int i = 0; i < kRowsMax; ++i) {
    if (i >= rows_per_thread) break;
    const int32_t local_row = i * kThreads + tid;
    const int32_t r = tile_begin + local_row;
    // Warp table: the warp finds every lane's request together (collective), before the rows
    // past K leave.
    [[maybe_unused]] int32_t found = 0;
    [[maybe_unused]] int32_t found_prefix = 0;
    if constexpr (kWarp) {
      found = warp_search_last_at_most<false>(lanes.key, r);
      found_prefix = __shfl_sync(kFullWarp, lanes.prefix, found);
    }
    if (r >= p.num_work_rows) break;
    int2 item = make_int2(-1, -1);
    if (r < total) {
      // Staged: the requests owning this chunk's start and the next chunk's bound the search.
      int32_t lo = 0;
      int32_t hi = nr - 1;
      if constexpr (kStaged) {
        const int32_t k = local_row / kChunkRows;
        lo = hints[k];
        if (tile_begin + (k + 1) * kChunkRows < total) hi = hints[k + 1];
      }
      const int32_t j = kWarp ? found : search_last_at_most<false>(prefix, lo, hi, r);
      item = make_int2(j, r - (kWarp ? found_prefix : prefix[j]));
    }
    Policy::store_work_row(out, r, item);
  }
}

/// Stages query_start_loc [nr + 1], the chunk starts [nr] and the ring blocks [nr] at `shared`,
/// and marks the request owning every 32nd row of the tile in `hints`. Every load of a batch is
/// issued before the first store (the hint loop's data-dependent trip count would otherwise
/// serialise them).
template <int kThreads, int32_t kKind>
__device__ void stage_request_table(const TileParams<kKind>& p, int32_t* shared, int32_t* hints, int32_t tile_begin,
                                    int32_t chunks) {
  const int32_t nr = p.num_requests;
  int32_t* qsl_s = shared;
  int32_t* start_s = qsl_s + nr + 1;
  int32_t* ring_s = start_s + nr;
  const int tid = static_cast<int>(threadIdx.x);
  const bool ring_blocks = kKind == kKindRing && p.block_table_cols > 0;
  for (int32_t base = 0; base < nr; base += kStageBatch * kThreads) {
    int32_t begin[kStageBatch];
    int32_t end[kStageBatch];
    int32_t seq_len[kStageBatch];
    int32_t ring_block[kStageBatch];
#pragma unroll
    for (int u = 0; u < kStageBatch; ++u) {
      const int32_t j = base + u * kThreads + tid;
      if (j < nr) {
        begin[u] = __ldg(p.query_start_loc + j);
        end[u] = __ldg(p.query_start_loc + j + 1);
        seq_len[u] = __ldg(p.seq_lens + j);
        ring_block[u] = ring_blocks ? __ldg(p.block_table + static_cast<int64_t>(j) * p.row_stride) : -1;
      }
    }
#pragma unroll
    for (int u = 0; u < kStageBatch; ++u) {
      const int32_t j = base + u * kThreads + tid;
      if (j < nr) {
        qsl_s[j] = begin[u];
        if (j == nr - 1) qsl_s[nr] = end[u];
        start_s[j] = seq_len[u] - (end[u] - begin[u]);
        ring_s[j] = ring_block[u];
        mark_chunk_starts(hints, chunks, tile_begin, begin[u], end[u], j);
      }
    }
  }
  __syncthreads();
}

template <typename Policy, int kThreads, MetadataRequestTable kTable, int32_t kKind, bool kOneRow>
__device__ void build_row_tile(const TileParams<kKind>& p, int32_t* shared, int32_t tile) {
  constexpr int kRowsMax = kOneRow ? 1 : kMaxRowsPerThread;
  const int32_t rows_per_thread = kOneRow ? 1 : p.rows_per_thread;
  constexpr bool kStaged = kTable == MetadataRequestTable::kSharedPerBlock;
  constexpr bool kWarp = kTable == MetadataRequestTable::kWarpRegisters;
  constexpr bool kStrict = Policy::kStrictRowSearch;
  const int32_t nr = p.num_requests;
  const int32_t tile_rows = kThreads * rows_per_thread;
  const int32_t chunks = tile_rows / kChunkRows;
  // The request table: staged in shared memory, or in the workspace (the warp table: in registers).
  const int32_t* qsl = kStaged ? shared : p.query_start_loc;                     // [nr + 1] query_start_loc
  const int32_t* starts = kStaged ? shared + nr + 1 : p.request_tables;          // [nr] chunk start s_j = e_j - q_j
  const int32_t* rings = kStaged ? shared + 2 * nr + 1 : p.request_tables + nr;  // [nr] ring block or -1
  int32_t* hints = shared + 3 * nr + 1;  // staged: [chunks + 1] request owning row tile_begin + 32k
  const int tid = static_cast<int>(threadIdx.x);
  const int32_t tile_begin = tile * tile_rows;
  constexpr bool kReadsCommon = kKind != kKindRing;

  // The common slots of this thread's rows do not depend on the request table: load them first.
  int64_t common[kRowsMax];
#pragma unroll
  for (int i = 0; i < kRowsMax; ++i) {
    const int32_t t = tile_begin + i * kThreads + tid;
    common[i] = (kReadsCommon && i < rows_per_thread && t < p.num_tokens) ? __ldg(p.common_slot_mapping + t) : -1;
  }
  if constexpr (kStaged) stage_request_table<kThreads, kKind>(p, shared, hints, tile_begin, chunks);
  [[maybe_unused]] const WarpRowTable lanes = kWarp ? load_warp_row_table<kKind>(p) : WarpRowTable{};

  // Phase 1, every row of this thread: its request, position, visible groups, and (compressed)
  // the block-table load, issued before anything waits on it.
  const int32_t m = kWarp ? __shfl_sync(kFullWarp, lanes.end, nr - 1) : qsl[nr];
  int32_t request[kRowsMax];
  int32_t position[kRowsMax];
  int32_t visible[kRowsMax];
  int32_t block[kRowsMax];
  int32_t group[kRowsMax];
#pragma unroll
  for (int i = 0; i < kRowsMax; ++i) {
    const int32_t local_row = i * kThreads + tid;
    const int32_t t = tile_begin + local_row;
    request[i] = 0;
    position[i] = -1;
    visible[i] = 0;
    block[i] = -1;
    group[i] = 0;
    // Warp table: the warp finds every lane's request together (collective), before the
    // padding rows leave.
    [[maybe_unused]] WarpRowRequest found{};
    if constexpr (kWarp) {
      if (i < rows_per_thread) found = find_warp_row_request<kStrict, kKind>(lanes, t);
    }
    if (i >= rows_per_thread || t >= p.num_tokens || t >= m) continue;
    // Staged: row t lies in chunk k, whose start and the next chunk's start are covered by
    // hints[k] and hints[k + 1] (or the next start is past M, and NR - 1 bounds the search).
    int32_t lo = 0;
    int32_t hi = nr - 1;
    if constexpr (kStaged) {
      const int32_t k = local_row / kChunkRows;
      lo = hints[k];
      if (tile_begin + (k + 1) * kChunkRows < m) hi = hints[k + 1];
    }
    const int32_t j = kWarp ? found.j : search_last_at_most<kStrict>(qsl, lo, hi, t);
    const int32_t begin = kWarp ? found.begin : qsl[j];
    const int32_t end = kWarp ? found.end : qsl[j + 1];
    const int32_t start = kWarp ? found.start : starts[j];
    const int32_t pos = start + (t - begin);
    const int32_t seq_len = start + (end - begin);
    request[i] = j;
    position[i] = pos;
    visible[i] = max(0, min(p.builder_ratio.div(pos + 1), p.builder_ratio.div(seq_len)));
    if (pos < 0) continue;
    if constexpr (kKind == kKindCompressed) {
      if (p.compress_ratio.mod(pos + 1) == 0) {
        const int32_t g = p.compress_ratio.div(pos);
        const int32_t logical_block = p.storage_block_size.div(g);
        const bool in_table = Policy::in_block_table(logical_block, p.block_table_cols);
        const bool common_ok = Policy::common_slot_usable(common[i]);
        if (in_table && common_ok) {
          const int64_t col_stride = Policy::column_stride(p);
          block[i] = __ldg(p.block_table + static_cast<int64_t>(j) * p.row_stride + logical_block * col_stride);
          group[i] = g;
        }
      }
    } else if constexpr (kKind == kKindRing) {
      const bool kept = Policy::ring_keeps_row(t, end, p.ring_capacity.divisor);
      if (kept) block[i] = kWarp ? found.ring : rings[j];
    }
  }

  // Phase 2: the stores (the slot waits on its block-table load).
#pragma unroll
  for (int i = 0; i < kRowsMax; ++i) {
    if (i >= rows_per_thread) break;
    const int32_t t = tile_begin + i * kThreads + tid;
    if (t >= p.num_tokens) break;
    if (t >= m) {
      Policy::store_padding_row(p, t);
      continue;
    }
    p.token_to_req[t] = request[i];
    p.logical_positions[t] = position[i];
    p.visible_blocks[t] = visible[i];
    int64_t slot = -1;
    if constexpr (kKind == kKindCompressed) {
      if (block[i] >= 0)
        slot = static_cast<int64_t>(block[i]) * p.storage_block_size.divisor + p.storage_block_size.mod(group[i]);
    } else if constexpr (kKind == kKindRing) {
      if (block[i] >= 0)
        slot = static_cast<int64_t>(block[i]) * p.ring_capacity.divisor + p.ring_capacity.mod(position[i]);
    } else {
      slot = common[i] >= 0 ? common[i] : -1;
    }
    p.slot_mapping[t] = slot;
  }
}

template <typename Policy, int kThreads, MetadataRequestTable kTable, int32_t kKind, bool kOneRow, bool kWarmParameters>
__global__ void __launch_bounds__(kThreads)
    metadata_staged_tiles_kernel(const __grid_constant__ TileParams<kKind> params) {
  extern __shared__ int32_t shared[];
  const auto block = static_cast<int32_t>(blockIdx.x);
  constexpr bool kRingFieldsOnly = kKind == kKindRing && kTable != MetadataRequestTable::kGlobalWorkspace;
  if constexpr (kWarmParameters) warm_parameter_cache<kRingFieldsOnly ? kRingTileParameterBytes : 0>(params);
  wait_for_previous_grid();  // every input may come from the previous kernel (programmatic_launch.cuh)
  allow_next_grid();
  Policy::after_next_grid_allowed();
  if constexpr (kKind == kKindCompressed) {
    if (block < params.work_blocks) {
      build_work_tile<Policy, kThreads, kTable, kOneRow>(params, shared, block);
      return;
    }
    build_row_tile<Policy, kThreads, kTable, kKind, kOneRow>(params, shared, block - params.work_blocks);
  } else {
    build_row_tile<Policy, kThreads, kTable, kKind, kOneRow>(params, shared, block);  // no work tiles
  }
}

/// The first launch when NR > kMaxStagedMetadataRequests: one block writes every request's chunk
/// start and ring block and (compressed kind) the exclusive prefix of n_j and their sum into the
/// workspace, kRequestTableThreads requests a round, for the tiles to search in global memory.
template <typename Policy>
__global__ void __launch_bounds__(kRequestTableThreads) metadata_request_tables_kernel(const MetadataParams p) {
  __shared__ int32_t warp_totals[kRequestTableThreads / 32];
  wait_for_previous_grid();
  allow_next_grid();
  const int32_t nr = p.num_requests;
  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid & 31;
  const int warp = tid >> 5;
  const bool ring_blocks = p.kind == kKindRing && p.block_table_cols > 0;
  int32_t carry = 0;  // sum of n_j over the rounds before, the same in every thread
  for (int32_t base = 0; base < nr; base += kRequestTableThreads) {
    const int32_t j = base + tid;
    int32_t n = 0;
    if (j < nr) {
      const int32_t begin = __ldg(p.query_start_loc + j);
      const int32_t end = __ldg(p.query_start_loc + j + 1);
      const int32_t seq_len = __ldg(p.seq_lens + j);
      p.request_tables[j] = seq_len - (end - begin);
      p.request_tables[nr + j] = ring_blocks ? __ldg(p.block_table + static_cast<int64_t>(j) * p.row_stride) : -1;
      if (p.kind == kKindCompressed) n = Policy::work_items(begin, end, seq_len, p.compress_ratio);
    }
    const int32_t inclusive = warp_inclusive_sum(n);
    if (lane == 31) warp_totals[warp] = inclusive;
    __syncthreads();
    int32_t offset = carry + inclusive - n;
#pragma unroll
    for (int w = 0; w < kRequestTableThreads / 32; ++w) {
      const int32_t warp_total = warp_totals[w];
      carry += warp_total;
      if (w < warp) offset += warp_total;
    }
    if (j < nr) p.request_tables[2 * nr + j] = offset;
    __syncthreads();  // the next round overwrites warp_totals
  }
  if (tid == 0) p.request_tables[3 * nr] = carry;
}

/// The tile kernel for the launch's kind (a template parameter, so that each kind's tiles carry
/// only their own code: no shape slower, the ring kind 0.1-0.2 us faster at decode; docs/decisions.md,
/// "CUDA metadata kernel, how it is instantiated").
template <typename Policy, int kThreads, MetadataRequestTable kTable, int32_t kKind, bool kOneRow,
          bool kWarmParameters = false>
constexpr auto tile_kernel = metadata_staged_tiles_kernel<Policy, kThreads, kTable, kKind, kOneRow, kWarmParameters>;

/// Launched with PDL, the ring kind's tiles warm the parameter cache before the wait (0.12 us
/// less at 2 x 4096, 0.18 at 4 x 4096; the compressed kind gained at decode and lost at 4 x 4096,
/// and plain launches lost 2-6 %). A policy may keep the plain prologue, which
/// computes the same outputs.
template <typename Policy>
constexpr bool warms_ring_parameters = Policy::kWarmsRingParameters;

template <typename Policy, int kThreads, MetadataRequestTable kTable, bool kOneRow>
cudaError_t launch_tiles_of(const MetadataParams& params, dim3 grid, size_t shared, cudaStream_t stream,
                            bool programmatic) {
  const dim3 block(kThreads);
  switch (params.kind) {
    case kKindCompressed:
      return launch_kernel(tile_kernel<Policy, kThreads, kTable, kKindCompressed, kOneRow>, grid, block, shared, stream,
                           programmatic, params);
    case kKindRing:
      if constexpr (warms_ring_parameters<Policy>) {
        if (programmatic)
          return launch_kernel(tile_kernel<Policy, kThreads, kTable, kKindRing, kOneRow, true>, grid, block, shared,
                               stream, programmatic, ring_tile_params(params));
      }
      return launch_kernel(tile_kernel<Policy, kThreads, kTable, kKindRing, kOneRow>, grid, block, shared, stream,
                           programmatic, ring_tile_params(params));
    case kKindPassthrough:
      return launch_kernel(tile_kernel<Policy, kThreads, kTable, kKindPassthrough, kOneRow>, grid, block, shared,
                           stream, programmatic, params);
    default:
      return cudaErrorInvalidValue;
  }
}

/// Launches the tiles for one row and one k-work row a thread (the plan's default up to 65 536
/// rows) without the loops and guards of up to four rows: a third fewer instructions per warp at
/// prefill (the ring kind: 118 instructions a warp instead of 182).
template <typename Policy, int kThreads, MetadataRequestTable kTable>
cudaError_t launch_tiles(const MetadataParams& params, dim3 grid, size_t shared, cudaStream_t stream,
                         bool programmatic) {
  if (params.rows_per_thread == 1 && params.work_rows_per_thread == 1)
    return launch_tiles_of<Policy, kThreads, kTable, true>(params, grid, shared, stream, programmatic);
  return launch_tiles_of<Policy, kThreads, kTable, false>(params, grid, shared, stream, programmatic);
}

template <typename Policy, int kThreads>
cudaError_t allow_staged_shared_memory(int bytes) {
  constexpr MetadataRequestTable kStaged = MetadataRequestTable::kSharedPerBlock;
  constexpr cudaFuncAttribute kLimit = cudaFuncAttributeMaxDynamicSharedMemorySize;
  cudaError_t e = cudaSuccess;
  const auto allow = [&](auto kernel) {
    if (e == cudaSuccess) e = cudaFuncSetAttribute(kernel, kLimit, bytes);
  };
  // One call per kernel: the ring kind's tiles take another parameter type (RingMetadataParams).
  allow(tile_kernel<Policy, kThreads, kStaged, kKindCompressed, false>);
  allow(tile_kernel<Policy, kThreads, kStaged, kKindCompressed, true>);
  allow(tile_kernel<Policy, kThreads, kStaged, kKindPassthrough, false>);
  allow(tile_kernel<Policy, kThreads, kStaged, kKindPassthrough, true>);
  allow(tile_kernel<Policy, kThreads, kStaged, kKindRing, false>);
  allow(tile_kernel<Policy, kThreads, kStaged, kKindRing, true>);
  if constexpr (warms_ring_parameters<Policy>) {
    allow(tile_kernel<Policy, kThreads, kStaged, kKindRing, false, true>);
    allow(tile_kernel<Policy, kThreads, kStaged, kKindRing, true, true>);
  }
  return e;
}

/// Raises the dynamic shared-memory limit of every staged instantiation of Policy.
template <typename Policy = MetadataPolicy>
cudaError_t allow_metadata_shared_memory(int bytes) {
  cudaError_t e = allow_staged_shared_memory<Policy, 256>(bytes);
  if constexpr (Policy::kWideStagedTiles) {
    if (e == cudaSuccess) e = allow_staged_shared_memory<Policy, 512>(bytes);
    if (e == cudaSuccess) e = allow_staged_shared_memory<Policy, 1024>(bytes);
  }
  return e;
}

/// Launches the Policy instantiation planned by plan_metadata_launch: for the warp table or the
/// staged table, the tiles at `shape.threads` threads per block (256; staged also 512 or 1024,
/// the tilings a caller may ask for, unless Policy::kWideStagedTiles is off); for the global
/// workspace, the request-table block and then the tiles; `programmatic`:
/// with programmatic dependent launch (both launches).
template <typename Policy = MetadataPolicy>
cudaError_t launch_metadata_staged_tiles(const MetadataParams& params, const MetadataLaunchShape& shape,
                                         cudaStream_t stream, bool programmatic = false) {
  const int32_t blocks = shape.row_blocks + shape.work_blocks;
  if (blocks == 0) return cudaSuccess;
  const dim3 grid(static_cast<unsigned>(blocks));
  const size_t shared = shape.shared_bytes;
  switch (shape.request_table) {
    case MetadataRequestTable::kWarpRegisters: {
      constexpr MetadataRequestTable kWarp = MetadataRequestTable::kWarpRegisters;
      if (shape.threads == kWarpTableThreads)
        return launch_tiles<Policy, kWarpTableThreads, kWarp>(params, grid, shared, stream, programmatic);
      if (shape.threads == kNarrowWarpTableThreads)
        return launch_tiles<Policy, kNarrowWarpTableThreads, kWarp>(params, grid, shared, stream, programmatic);
      return cudaErrorInvalidConfiguration;
    }
    case MetadataRequestTable::kGlobalWorkspace: {
      if (shape.threads != kGlobalTableThreads) return cudaErrorInvalidConfiguration;
      const cudaError_t e = launch_kernel(metadata_request_tables_kernel<Policy>, dim3(1), dim3(kRequestTableThreads),
                                          0, stream, programmatic, params);
      if (e != cudaSuccess) return e;
      return launch_tiles<Policy, kGlobalTableThreads, MetadataRequestTable::kGlobalWorkspace>(params, grid, shared,
                                                                                               stream, programmatic);
    }
    case MetadataRequestTable::kSharedPerBlock:
      break;
  }
  constexpr MetadataRequestTable kStaged = MetadataRequestTable::kSharedPerBlock;
  if (shape.threads == 256) return launch_tiles<Policy, 256, kStaged>(params, grid, shared, stream, programmatic);
  if constexpr (Policy::kWideStagedTiles) {
    if (shape.threads == 512) return launch_tiles<Policy, 512, kStaged>(params, grid, shared, stream, programmatic);
    if (shape.threads == 1024) return launch_tiles<Policy, 1024, kStaged>(params, grid, shared, stream, programmatic);
  }
  return cudaErrorInvalidConfiguration;
}

}  // namespace qsa::cuda::detail
