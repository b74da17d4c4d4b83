#include "qsa/traces/stale_padding.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "qsa/traces/rng.hpp"

namespace qsa::traces {
namespace {

constexpr uint64_t kStaleStream = 0x7374616c65ull;  // "stale"

// A block id a persistent table may still hold: a live request's (the adversarial one: a kernel
// that reads it writes a live block), another block of the cache (an earlier step's), or a
// negative one. Not ids past the cache: an earlier step's table named blocks of the cache, and a
// kernel's declared slot limits (plugin capabilities) are judged on the whole rows below NR.
int32_t stale_block(Rng& rng, const std::vector<int32_t>& live_ids, int64_t num_blocks) {
  const int64_t pick = rng.range(0, 7);
  if (pick < 4 && !live_ids.empty())
    return live_ids[static_cast<size_t>(rng.range(0, static_cast<int64_t>(live_ids.size()) - 1))];
  if (pick < 6 && num_blocks > 0) return static_cast<int32_t>(rng.range(0, num_blocks - 1));
  return pick == 6 ? std::numeric_limits<int32_t>::min() : static_cast<int32_t>(rng.range(-1024, -1));
}

// Every storage element outside rows [0, live_requests) x columns [0, W) gets a stale id: padded
// requests' rows, rows past NR and the columns of a slice's parent table.
void stale_table(Rng& rng, int64_t live_requests, int64_t num_blocks, BlockTable* table) {
  std::vector<bool> used(table->storage.size(), false);
  std::vector<int32_t> live_ids;
  for (int64_t r = 0; r < std::min(live_requests, table->rows); ++r)
    for (int64_t c = 0; c < table->cols; ++c) {
      const auto i = static_cast<size_t>(r * table->row_stride + c * table->col_stride);
      used[i] = true;
      if (table->storage[i] >= 0) live_ids.push_back(table->storage[i]);
    }
  for (size_t i = 0; i < table->storage.size(); ++i)
    if (!used[i]) table->storage[i] = stale_block(rng, live_ids, num_blocks);
}

// A negative common slot (SPEC 1.4 rule 5) other than the -1 vLLM writes: what a buffer holds
// when padding is marked by any negative value.
int64_t stale_negative_slot(Rng& rng, const std::vector<int64_t>& slots, int64_t live_rows) {
  switch (rng.range(0, 3)) {
    case 0:
      return std::numeric_limits<int64_t>::min();
    case 1:
      return -(int64_t{1} << 31);
    case 2:
      if (live_rows > 0) {
        const int64_t slot = slots[static_cast<size_t>(rng.range(0, live_rows - 1))];
        if (slot >= 0) return -slot - 1;
      }
      return -2;
    default:
      return -1 - rng.range(0, 1 << 20);
  }
}

}  // namespace

void add_stale_padding(const ScenarioConfig& config, int64_t index, int64_t live_requests, StepInput* input) {
  Rng rng(hash_words(config.seed, kStaleStream, static_cast<uint64_t>(index)));
  Batch& b = input->batch;
  const int64_t m = b.num_mapped_tokens();
  const int64_t n = b.num_actual_tokens;
  const int64_t d = input->config.head_dim;
  const int64_t heads = input->config.num_heads;
  const int64_t axes = input->position_axes;
  const int64_t top = input->config.max_position - 1;
  for (int64_t t = m; t < n; ++t) {
    const int64_t pick = rng.range(0, 3);
    if (pick < 2 && m > 0) {  // the stale copy of a live row
      const int64_t u = rng.range(0, m - 1);
      std::copy_n(input->keys.begin() + u * d, d, input->keys.begin() + t * d);
      std::copy_n(input->queries.begin() + u * heads * d, heads * d, input->queries.begin() + t * heads * d);
      for (int64_t a = 0; a < axes; ++a) input->positions[a * n + t] = input->positions[a * n + u];
    } else {  // extreme positions, the axes apart
      for (int64_t a = 0; a < axes; ++a) {
        const int64_t which = rng.range(0, 2);
        input->positions[a * n + t] = which == 0 ? 0 : which == 1 ? top : rng.range(0, top);
      }
    }
    b.common_slot_mapping[t] = stale_negative_slot(rng, b.common_slot_mapping, m);
  }
  stale_table(rng, live_requests, config.num_compressed_blocks, &input->block_table);
  stale_table(rng, live_requests, config.num_ring_blocks, &input->ring_block_table);
}

}  // namespace qsa::traces
