#include "qsa/step_types.hpp"

#include <atomic>

namespace qsa {

const char* to_string(StoreDtype dtype) { return dtype == StoreDtype::kBf16 ? "bf16" : "fp8_e4m3"; }

const char* to_string(StepStatus status) { return status == StepStatus::kOk ? "ok" : "position-out-of-range"; }

CacheLayout CacheLayout::dense(int64_t num_blocks, int64_t rows, int64_t width, int element_bytes) {
  return CacheLayout{num_blocks, rows, width, rows * width, width, element_bytes};
}

std::array<int64_t, 3> StepInput::row_positions(int64_t t) const {
  const int64_t n = num_tokens();
  if (position_axes == 3) return {positions[t], positions[n + t], positions[2 * n + t]};
  return {positions[t], positions[t], positions[t]};
}

MetadataInput StepInput::compressed_metadata_input() const {
  MetadataInput in;
  in.batch = batch;
  in.cache.kind = CacheKind::kCompressed;
  in.cache.compress_ratio = config.compress_ratio;
  in.cache.storage_block_size = config.storage_block_size;
  in.block_table = block_table;
  return in;
}

MetadataInput StepInput::ring_metadata_input() const {
  MetadataInput in;
  in.batch = batch;
  in.cache.kind = CacheKind::kRing;
  in.cache.ring_capacity = config.ring_capacity;
  in.block_table = ring_block_table;
  return in;
}

StepOutput make_poisoned_step_output(const StepInput& input) {
  StepOutput out;
  out.step_status = static_cast<StepStatus>(0x5A);  // neither kOk nor kPositionOutOfRange
  // Sized from the queries actually present (N x HQ x D for a valid input), so poisoning an
  // invalid input never allocates more than the input itself holds.
  out.q_out.assign(input.queries.size() * static_cast<size_t>(element_bytes(input.config.store_dtype)), kPoisonByte);
  return out;
}

void note_host_edit(CacheBuffer& cache, size_t offset, size_t bytes) {
  CacheJournal& j = cache.journal;
  if (!j.journaled || j.token == 0 || bytes == 0) return;
  if (!j.host_edits.empty() && j.host_edits.back().second == offset) {
    j.host_edits.back().second = offset + bytes;  // the next row of a block or a prefill
    return;
  }
  if (j.host_edits.size() >= kMaxHostEdits) {
    j.token = 0;  // no backend's copy matches any more: the next call compares or copies whole
    j.host_edits.clear();
    return;
  }
  j.host_edits.emplace_back(offset, offset + bytes);
}

uint64_t new_cache_token() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace qsa
