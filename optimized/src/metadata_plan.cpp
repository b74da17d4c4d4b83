#include "metadata_plan.hpp"

#include <algorithm>
#include <string>

#include "kernels/metadata_params.hpp"

namespace qsa::cuda::detail {
namespace {

Status bad(Error* error, const char* field, const std::string& rule, const std::string& message) {
  return invalid(error, field, -1, rule, message);
}

// Default tiling, measured on the H200 (docs/cuda-metadata.md). Threads: 256 for every NR. Wider
// blocks (one staged request per thread) were tried for NR = 1024 and are slower: 3.81 us per
// step with 1024 threads, 2.77 with 512, 2.75 with 256 (compressed, N = 4096). Rows: one row and
// one k-work row per thread (a thread's rows are processed one after the other, so more blocks
// beat more rows per thread) up to 256 tiles of each, then 2 and 4 per thread to bound the
// redundant staging. The warp table at 8192 rows or fewer: 128 threads, the grid twice as wide
// (1.06 against 1.21 us at 2 x 4096 ring, PDL; at 16384 rows only one kind gains).
int32_t default_threads(int64_t nr, int64_t rows) {
  return nr <= kMaxWarpTableRequests && rows <= kNarrowWarpTableMaxRows ? kNarrowWarpTableThreads : 256;
}

int32_t default_per_thread(int64_t rows, int64_t threads) {
  if (rows <= 256 * threads) return 1;
  if (rows <= 512 * threads) return 2;
  return 4;
}

}  // namespace

size_t max_metadata_shared_bytes() {
  const int64_t words =
      std::max(row_tile_shared_words(kMaxStagedMetadataRequests, kMaxMetadataThreads, kMaxRowsPerThread),
               work_tile_shared_words(kMaxStagedMetadataRequests, kMaxMetadataThreads, kMaxWorkRowsPerThread));
  return static_cast<size_t>(words) * sizeof(int32_t);
}

Status plan_metadata_launch(const MetadataDeviceArgs& args, const MetadataLaunchConfig& config, MetadataParams* params,
                            MetadataLaunchShape* shape, Error* error) {
  const int64_t n = args.num_tokens;
  const int64_t nr = args.num_requests;
  if (n < 0 || n > kMaxTokens)
    return bad(error, "num_tokens", "out-of-range", "N = " + std::to_string(n) + " is outside [0, 2^24]");
  if (nr < 1 || nr > kMaxMetadataRequests)
    return bad(
        error, "num_requests", "out-of-range",
        "NR = " + std::to_string(nr) + " is outside [1, " + std::to_string(kMaxMetadataRequests) + "] (SPEC 1.3)");
  if (args.builder_ratio < 1) return bad(error, "builder_ratio", "out-of-range", "Cb must be >= 1");
  switch (args.kind) {
    case CacheKind::kCompressed:
      if (args.compress_ratio < 2 || args.compress_ratio > kMaxCompressRatio)
        return bad(error, "compress_ratio", "out-of-range", "C must be in [2, 1024]");
      if (args.storage_block_size < 1) return bad(error, "storage_block_size", "out-of-range", "S must be >= 1");
      break;
    case CacheKind::kRing:
      if (args.ring_capacity < 1) return bad(error, "ring_capacity", "out-of-range", "R must be >= 1");
      break;
    case CacheKind::kPassthrough:
      break;
  }
  if (args.block_table_cols < 0 || args.block_table_row_stride < 0 || args.block_table_col_stride < 0)
    return bad(error, "block_table", "out-of-range", "negative width or stride");
  if (args.query_start_loc == nullptr || args.seq_lens == nullptr)
    return bad(error, "query_start_loc", "null-pointer", "query_start_loc and seq_lens are required");
  if (args.block_table_cols > 0 && args.block_table == nullptr)
    return bad(error, "block_table", "null-pointer", "W > 0 but no table");
  if (n > 0 && args.kind != CacheKind::kRing && args.common_slot_mapping == nullptr)
    return bad(error, "common_slot_mapping", "null-pointer", "compressed and passthrough read the common slot mapping");
  if (n > 0 && (args.token_to_req == nullptr || args.logical_positions == nullptr || args.visible_blocks == nullptr ||
                args.slot_mapping == nullptr))
    return bad(error, "outputs", "null-pointer", "every per-row output is required when N > 0");
  const int64_t k = args.num_work_rows();
  if (k > kMaxInt32) return bad(error, "k_work_metadata", "out-of-range", "K does not fit int32");
  if (k > 0 && args.k_work_metadata == nullptr)
    return bad(error, "k_work_metadata", "null-pointer", "K > 0 but no output");
  if (k > 0 && reinterpret_cast<uintptr_t>(args.k_work_metadata) % 8 != 0)
    return bad(error, "k_work_metadata", "misaligned", "the (request, work) pairs are written as 8-byte words");

  const bool global_tables = nr > kMaxStagedMetadataRequests;
  if (global_tables && args.request_workspace == nullptr)
    return bad(error, "request_workspace", "null-pointer",
               "NR = " + std::to_string(nr) + " > " + std::to_string(kMaxStagedMetadataRequests) +
                   " needs a workspace of metadata_workspace_elements(NR) int32");
  const int32_t threads = config.threads != 0 ? config.threads : default_threads(nr, n);
  if (threads != kNarrowWarpTableThreads && threads != 256 && threads != 512 && threads != 1024)
    return bad(error, "threads", "out-of-range", "must be 128, 256, 512 or 1024");
  if (threads == kNarrowWarpTableThreads && nr > kMaxWarpTableRequests)
    return bad(error, "threads", "out-of-range",
               "128 threads per block only with NR <= " + std::to_string(kMaxWarpTableRequests) +
                   " (the warp table); NR = " + std::to_string(nr));
  if (global_tables && threads != kGlobalTableThreads)
    return bad(error, "threads", "out-of-range",
               "a launch with NR > " + std::to_string(kMaxStagedMetadataRequests) + " runs " +
                   std::to_string(kGlobalTableThreads) + " threads per block");
  const int32_t rows_per_thread = config.rows_per_thread != 0 ? config.rows_per_thread : default_per_thread(n, threads);
  const int32_t work_rows_per_thread =
      config.work_rows_per_thread != 0 ? config.work_rows_per_thread : default_per_thread(k, threads);
  if (rows_per_thread < 1 || rows_per_thread > kMaxRowsPerThread)
    return bad(error, "rows_per_thread", "out-of-range", "must be in [1, 4]");
  if (work_rows_per_thread < 1 || work_rows_per_thread > kMaxWorkRowsPerThread)
    return bad(error, "work_rows_per_thread", "out-of-range", "must be in [1, 4]");

  const int64_t row_tile = int64_t{threads} * rows_per_thread;
  const int64_t work_tile = int64_t{threads} * work_rows_per_thread;
  MetadataLaunchShape s;
  // A tiling the warp table does not offer (512 or 1024 threads) stages the table per block.
  const bool warp_threads = threads == kWarpTableThreads || threads == kNarrowWarpTableThreads;
  s.request_table = global_tables                                 ? MetadataRequestTable::kGlobalWorkspace
                    : nr <= kMaxWarpTableRequests && warp_threads ? MetadataRequestTable::kWarpRegisters
                                                                  : MetadataRequestTable::kSharedPerBlock;
  const bool staged = s.request_table == MetadataRequestTable::kSharedPerBlock;
  s.threads = threads;
  s.rows_per_thread = rows_per_thread;
  s.work_rows_per_thread = work_rows_per_thread;
  s.row_blocks = static_cast<int32_t>((n + row_tile - 1) / row_tile);
  s.work_blocks = static_cast<int32_t>((k + work_tile - 1) / work_tile);
  int64_t words = 0;  // warp and global tables: none
  if (staged && s.row_blocks > 0) words = std::max(words, row_tile_shared_words(nr, threads, rows_per_thread));
  if (staged && s.work_blocks > 0) words = std::max(words, work_tile_shared_words(nr, threads, work_rows_per_thread));
  s.shared_bytes = static_cast<size_t>(words) * sizeof(int32_t);

  MetadataParams prm{};
  prm.query_start_loc = args.query_start_loc;
  prm.seq_lens = args.seq_lens;
  prm.common_slot_mapping = args.kind == CacheKind::kRing ? nullptr : args.common_slot_mapping;
  prm.block_table = args.block_table;
  prm.row_stride = args.block_table_row_stride;
  prm.col_stride = args.block_table_col_stride;
  prm.block_table_cols = args.block_table_cols;
  prm.num_tokens = static_cast<int32_t>(n);
  prm.num_requests = static_cast<int32_t>(nr);
  prm.num_work_rows = static_cast<int32_t>(k);
  prm.kind = args.kind == CacheKind::kCompressed ? kKindCompressed
             : args.kind == CacheKind::kRing     ? kKindRing
                                                 : kKindPassthrough;
  prm.compress_ratio =
      InvariantDivider::make(static_cast<uint32_t>(args.kind == CacheKind::kCompressed ? args.compress_ratio : 1));
  prm.builder_ratio = InvariantDivider::make(static_cast<uint32_t>(args.builder_ratio));
  prm.storage_block_size =
      InvariantDivider::make(static_cast<uint32_t>(args.kind == CacheKind::kCompressed ? args.storage_block_size : 1));
  prm.ring_capacity =
      InvariantDivider::make(static_cast<uint32_t>(args.kind == CacheKind::kRing ? args.ring_capacity : 1));
  prm.token_to_req = args.token_to_req;
  prm.logical_positions = args.logical_positions;
  prm.visible_blocks = args.visible_blocks;
  prm.slot_mapping = args.slot_mapping;
  prm.k_work_metadata = args.k_work_metadata;
  prm.request_tables = global_tables ? args.request_workspace : nullptr;
  prm.rows_per_thread = rows_per_thread;
  prm.work_rows_per_thread = work_rows_per_thread;
  prm.work_blocks = s.work_blocks;
  *params = prm;
  *shape = s;
  return Status::kOk;
}

}  // namespace qsa::cuda::detail

namespace qsa::cuda {

void MetadataDeviceArgs::set_cache(const CacheKindConfig& cache) {
  kind = cache.kind;
  compress_ratio = static_cast<int32_t>(cache.kind == CacheKind::kCompressed ? cache.compress_ratio.value_or(0) : 0);
  builder_ratio = static_cast<int32_t>(cache.builder_ratio());
  storage_block_size = static_cast<int32_t>(cache.storage_block_size);
  ring_capacity = static_cast<int32_t>(cache.ring_capacity);
}

int64_t MetadataDeviceArgs::num_work_rows() const {
  if (kind != CacheKind::kCompressed || compress_ratio < 1) return 0;
  return k_work_rows(num_tokens, num_requests, compress_ratio);
}

MetadataLaunchShape metadata_launch_shape(const MetadataDeviceArgs& args, const MetadataLaunchConfig& config) {
  detail::MetadataParams params{};
  MetadataLaunchShape shape;
  Error ignored;
  if (detail::plan_metadata_launch(args, config, &params, &shape, &ignored) != Status::kOk)
    return MetadataLaunchShape{};
  return shape;
}

}  // namespace qsa::cuda
