#pragma once
// Persistent device buffers for one cache group's metadata, sized once like the persistent tensors
// of vLLM's metadata builder: from max_num_batched_tokens (rows), max_num_seqs (requests) and the
// block table's element count. Host header.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "qsa/cuda/metadata.hpp"
#include "qsa/status.hpp"
#include "qsa/types.hpp"

namespace qsa::cuda {

class MetadataBuffers {
 public:
  struct Capacity {
    int64_t max_tokens = 0;          // max_num_batched_tokens: N of any step
    int64_t max_requests = 0;        // max_num_seqs: NR of any step, <= kMaxMetadataRequests (2^20)
    int64_t max_table_elements = 0;  // elements of the block table's storage
  };

  /// Allocates every buffer (cudaMalloc; the only allocation, never in a launch path) and calls
  /// prepare_metadata_launch(). The block-table buffer gets as many elements again as slack and
  /// is zero-filled once, so that a test variant reading one column past a table reads memory it
  /// owns. The fill is enqueued on `stream`, the stream of every later upload: on the legacy
  /// default stream it could land after an upload on a non-blocking stream and zero the table
  /// (docs/scale-out.md: two processes on one H200). On failure *buffers is left empty.
  [[nodiscard]] static Status create(const Capacity& capacity, cudaStream_t stream,
                                     std::unique_ptr<MetadataBuffers>* buffers, Error* error);

  ~MetadataBuffers();
  MetadataBuffers(const MetadataBuffers&) = delete;
  MetadataBuffers& operator=(const MetadataBuffers&) = delete;

  const Capacity& capacity() const { return capacity_; }

  /// Whether a host input fits these buffers (N, NR, block-table storage).
  bool fits(const MetadataInput& input) const;

  /// Copies a valid host input to the device (qsl and seq_lens narrowed to int32; the first N common
  /// slots; the block table's storage as it is, strides kept) on `stream`, and returns the device
  /// arguments that name these buffers. Copies from pageable memory: the call returns once the
  /// host data is staged; the copies complete in `stream`'s order. Precondition:
  /// qsa::validate(input) == kOk and fits(input).
  [[nodiscard]] Status upload(const MetadataInput& input, cudaStream_t stream, MetadataDeviceArgs* args, Error* error);

  /// Fills every output element of `args` (rows [0, N), work rows [0, K)) with the byte 0xA5,
  /// asynchronously on `stream`, so that an element a kernel forgets to write cannot pass.
  [[nodiscard]] Status poison_outputs(const MetadataDeviceArgs& args, cudaStream_t stream, Error* error) const;

  /// Copies the outputs of `args` into *output (vectors resized to N and 2·K; the split is left
  /// alone) and synchronizes `stream`.
  [[nodiscard]] Status download(const MetadataDeviceArgs& args, cudaStream_t stream, MetadataOutput* output,
                                Error* error) const;

 private:
  MetadataBuffers() = default;

  Capacity capacity_;
  int32_t* query_start_loc_ = nullptr;         // [max_requests + 1]
  int32_t* seq_lens_ = nullptr;                // [max_requests]
  int64_t* common_slot_mapping_ = nullptr;     // [max_tokens]
  int32_t* block_table_ = nullptr;             // [2 * max_table_elements + 1]: storage, then slack
  int32_t* token_to_req_ = nullptr;            // [max_tokens]
  int64_t* logical_positions_ = nullptr;       // [max_tokens]
  int32_t* visible_blocks_ = nullptr;          // [max_tokens]
  int64_t* slot_mapping_ = nullptr;            // [max_tokens]
  int32_t* k_work_metadata_ = nullptr;         // [max_work_rows][2], max_work_rows = max_tokens / 2 + max_requests
  int32_t* request_workspace_ = nullptr;       // [metadata_workspace_elements(max_requests)], null when 0
  std::vector<int32_t> host_query_start_loc_;  // int32 staging of the host input
  std::vector<int32_t> host_seq_lens_;
};

}  // namespace qsa::cuda
