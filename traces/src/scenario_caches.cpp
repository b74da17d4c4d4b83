#include "qsa/traces/scenario_caches.hpp"

namespace qsa::traces {
namespace {

// Rows of `width` elements, `row_pad` elements apart, and `block_pad` elements past each block.
CacheLayout padded_layout(int64_t num_blocks, int64_t rows, int64_t width, int element_bytes, int64_t row_pad,
                          int64_t block_pad) {
  CacheLayout l = CacheLayout::dense(num_blocks, rows, width, element_bytes);
  l.row_stride = width + row_pad;
  l.block_stride = rows * l.row_stride + block_pad;
  return l;
}

}  // namespace

CacheLayout ring_cache_layout(const ScenarioConfig& config) {
  return padded_layout(config.num_ring_blocks, config.ring_capacity, ring_row_width(config.head_dim, config.mrope), 2,
                       config.ring_row_pad, config.ring_block_pad);
}

CacheLayout compressed_cache_layout(const ScenarioConfig& config) {
  return padded_layout(config.num_compressed_blocks, config.storage_block_size(), config.head_dim,
                       element_bytes(config.store_dtype), config.compressed_row_pad, config.compressed_block_pad);
}

StepGeometry step_geometry(const ScenarioConfig& config) {
  StepGeometry g;
  g.head_dim = config.head_dim;
  g.rotary_dim = config.rotary_dim;
  g.num_heads = config.num_heads;
  g.compress_ratio = config.compress_ratio;
  g.storage_block_size = config.storage_block_size();
  g.ring_capacity = config.ring_capacity;
  g.store_dtype = config.store_dtype;
  g.mrope = config.mrope;
  g.ring_positions = config.mrope;  // an MRoPE model's ring caches the positions (SPEC 4)
  g.strided_block_tables = config.block_table_layout != BlockTableLayout::kRows;
  g.padded_caches = config.compressed_row_pad > 0 || config.compressed_block_pad > 0 || config.ring_row_pad > 0 ||
                    config.ring_block_pad > 0;
  return g;
}

StepCaches make_poisoned_caches(const ScenarioConfig& config) { return make_caches(config, kPoisonByte); }

StepCaches make_caches(const ScenarioConfig& config, uint8_t value) {
  StepCaches caches;
  caches.ring.layout = ring_cache_layout(config);
  caches.ring.bytes.assign(static_cast<size_t>(caches.ring.layout.size_bytes()), value);
  caches.compressed.layout = compressed_cache_layout(config);
  caches.compressed.bytes.assign(static_cast<size_t>(caches.compressed.layout.size_bytes()), value);
  return caches;
}

}  // namespace qsa::traces
