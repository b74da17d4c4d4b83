#pragma once
// The plugin call arguments built from the host types: the buffers of one metadata build and of
// one step update, uploaded where the plugin asked and described as DLTensors. Shared by the
// plugin backend (one call per check) and its device step (uploaded once, enqueued many times).

#include <array>
#include <cstdint>
#include <vector>

#include "adapter_support.hpp"
#include "plugin_memory.hpp"
#include "qsa/status.hpp"
#include "qsa/step_types.hpp"
#include "qsa/types.hpp"
#include "qsacheck/plugin.h"

namespace qsa::backends {

// The buffers of one metadata build, alive until its outputs are read (or the step that uses them ends).
struct PluginMetadataBuffers {
  PluginBuffer qsl, seq_lens, common_slots, block_table;
  PluginBuffer token_to_req, logical_positions, visible_blocks, slot_mapping, k_work;
  QsaBatchSplit split{};
  QsaPluginMetadata out{};
  QsaPluginBatch batch{};
};

// The buffers one step update reads and writes, except the caches and the RoPE table (which
// live longer: across steps in the backend, across input sets in the device step).
struct PluginStepBuffers {
  PluginMetadataBuffers batch;  // the batch tensors only
  PluginBuffer block_table, ring_block_table, keys, queries, positions, w_k, w_q, q_out, step_status;
};

// What a PluginBackend keeps between calls, so steady state allocates nothing: the buffers of a
// metadata build, of the step's own metadata and of a step, and the shape and strides of the
// caches' tensors when they are qsacheck's own (a host plugin).
struct PluginBackendBuffers {
  PluginMetadataBuffers metadata, compressed_metadata, ring_metadata;
  PluginStepBuffers step;
  std::array<int64_t, 6> ring_shape{}, compressed_shape{};  // {blocks, rows, width}, then strides
};

/// A host cache as the plugin's tensor, in place: `shape` receives the shape and strides it points at.
DLTensor host_cache_tensor(CacheBuffer& cache, std::array<int64_t, 6>* shape);

Status upload_batch(PluginMemory& memory, const Batch& batch, PluginMetadataBuffers* b, Error* error);
Status upload_table(PluginMemory& memory, const BlockTable& table, PluginBuffer* buffer, DLTensor* tensor,
                    Error* error);
/// The DLTensor of a cache in `buffer`: bf16, or uint8 for fp8 (the store dtype is in the args).
DLTensor cache_tensor(const CacheLayout& layout, PluginBuffer* buffer);

/// The step arguments' scalar fields (struct size, dtype, C, S, R, D, rd, HQ, eps, MRoPE, ...).
void fill_step_config(const StepConfig& config, QsaPluginStepArgs* args);

/// Uploads everything of one step but the caches and the RoPE table, poisons q_out and the status
/// word, and points the matching fields of `args` at the buffers.
Status upload_step_inputs(PluginMemory& memory, const StepInput& input, PluginStepBuffers* b, QsaPluginStepArgs* args,
                          Error* error);

}  // namespace qsa::backends
