#include "support/step_shapes.hpp"

#include <algorithm>
#include <cstring>

#include "qsa/traces/rng.hpp"

namespace qsa::bench {

std::vector<StepShape> step_shapes() {
  std::vector<StepShape> shapes;
  for (StoreDtype dtype : {StoreDtype::kBf16, StoreDtype::kFp8E4m3}) {
    for (int64_t nr : {64, 256, 1024}) shapes.push_back({"decode", 4 * nr, nr, dtype});
    shapes.push_back({"mixed", 8192, 1024, dtype});
    for (int64_t nr : {2, 4, 16}) shapes.push_back({"prefill", 4096 * nr, nr, dtype});
  }
  return shapes;
}

StepCase make_step_case(const StepShape& shape, uint64_t seed) {
  traces::Rng rng(seed);
  StepCase c;
  StepInput& in = c.input;
  StepConfig& cfg = in.config;
  cfg.compress_ratio = 4;
  cfg.storage_block_size = 16;  // B = 64
  cfg.ring_capacity = 8;        // 3 drafts
  cfg.head_dim = 128;
  cfg.rotary_dim = 64;
  cfg.num_heads = 4;
  cfg.eps = 1e-6f;
  cfg.mrope_sections = std::array<int64_t, 3>{11, 11, 10};
  cfg.ring_positions = true;
  cfg.store_dtype = shape.dtype;
  cfg.max_position = 8192;
  cfg.cos_sin = std::make_shared<const std::vector<Bf16>>(make_cos_sin_table(1e7, 64, cfg.max_position));
  for (int d = 0; d < 128; ++d) {
    cfg.w_k.push_back(bf16_from_float(static_cast<float>(rng.range(-64, 64)) / 256.0f));
    cfg.w_q.push_back(bf16_from_float(static_cast<float>(rng.range(-64, 64)) / 256.0f));
  }

  // Chunks: the decodes first (4 rows each), then prefill chunks that fill N.
  Batch& b = in.batch;
  b.reorder_batch_threshold = 4;
  b.query_start_loc = {0};
  const int64_t decodes = shape.name == "prefill" ? 0 : (shape.name == "mixed" ? shape.requests - 4 : shape.requests);
  const int64_t prefills = shape.requests - decodes;
  const int64_t prefill_rows = prefills > 0 ? (shape.tokens - 4 * decodes) / prefills : 0;
  for (int64_t j = 0; j < shape.requests; ++j) {
    const bool decode = j < decodes;
    const int64_t q = decode ? 4 : prefill_rows;
    const int64_t start = decode ? rng.range(64, 4000) : 0;  // a decode has wrapped the ring many times
    b.query_start_loc.push_back(b.query_start_loc.back() + q);
    b.seq_lens.push_back(start + q);
  }
  b.num_actual_tokens = b.query_start_loc.back();
  const int64_t n = b.num_actual_tokens;
  const int64_t blocks_per_request = (*std::max_element(b.seq_lens.begin(), b.seq_lens.end()) + 63) / 64;
  std::vector<std::vector<int32_t>> table(static_cast<size_t>(shape.requests));
  std::vector<std::vector<int32_t>> ring(static_cast<size_t>(shape.requests));
  for (int64_t j = 0; j < shape.requests; ++j) {
    for (int64_t k = 0; k < blocks_per_request; ++k)
      table[j].push_back(static_cast<int32_t>(j * blocks_per_request + k));
    ring[j].push_back(static_cast<int32_t>(j));
  }
  in.block_table = BlockTable::from_rows(table);
  in.ring_block_table = BlockTable::from_rows(ring);
  for (int64_t t = 0; t < n; ++t) b.common_slot_mapping.push_back(t);

  auto random_bf16 = [&] { return bf16_from_float(static_cast<float>((2.0 * rng.unit() - 1.0) * 3.0)); };
  in.keys.resize(static_cast<size_t>(n * 128));
  in.queries.resize(static_cast<size_t>(n * 4 * 128));
  for (Bf16& v : in.keys) v = random_bf16();
  for (Bf16& v : in.queries) v = random_bf16();
  in.position_axes = 3;
  in.positions.resize(static_cast<size_t>(3 * n));
  for (int64_t j = 0; j < shape.requests; ++j)
    for (int64_t t = b.query_start_loc[j]; t < b.query_start_loc[j + 1]; ++t)
      for (int axis = 0; axis < 3; ++axis)
        in.positions[axis * n + t] = b.chunk_start(j) + (t - b.query_start_loc[j]) + axis;

  // Caches: one ring block per request, every compressed block; the open groups' ring rows hold
  // committed keys with in-range position tails.
  c.caches.ring.layout = CacheLayout::dense(shape.requests, 8, ring_row_width(128, true), 2);
  c.caches.ring.bytes.resize(static_cast<size_t>(c.caches.ring.layout.size_bytes()));
  for (size_t i = 0; i < c.caches.ring.bytes.size(); i += 2) {
    const Bf16 v = random_bf16();
    c.caches.ring.bytes[i] = static_cast<uint8_t>(v & 0xFF);
    c.caches.ring.bytes[i + 1] = static_cast<uint8_t>(v >> 8);
  }
  for (int64_t slot = 0; slot < shape.requests * 8; ++slot) {
    const int64_t tail[3] = {rng.range(0, 4000), rng.range(0, 4000), rng.range(0, 4000)};
    std::memcpy(c.caches.ring.bytes.data() + c.caches.ring.layout.byte_offset(slot, 128), tail, sizeof tail);
  }
  c.caches.compressed.layout =
      CacheLayout::dense(shape.requests * blocks_per_request, 16, 128, element_bytes(shape.dtype));
  c.caches.compressed.bytes.assign(static_cast<size_t>(c.caches.compressed.layout.size_bytes()), 0);
  return c;
}

int64_t step_bytes(const StepInput& in) {
  const StepConfig& c = in.config;
  const int64_t n = in.num_tokens();
  const int64_t d = c.head_dim;
  const int64_t eb = element_bytes(c.store_dtype);
  const int64_t ring_row = ring_row_width(d, c.ring_positions) * 2;
  int64_t bytes = n * c.num_heads * d * (2 + eb) + n * d * 2;  // q in and out, k in
  const Batch& b = in.batch;
  for (int64_t j = 0; j < b.num_requests(); ++j) {
    const int64_t q = b.query_len(j);
    if (q == 0) continue;
    const int64_t s = b.chunk_start(j);
    const int64_t groups = b.seq_lens[j] / c.compress_ratio - s / c.compress_ratio;
    bytes += std::min(q, c.ring_capacity) * ring_row;            // ring writes
    bytes += groups * d * eb;                                    // compressed writes
    if (groups > 0) bytes += (s % c.compress_ratio) * ring_row;  // ring reads of the first group's earlier members
  }
  return bytes;
}

}  // namespace qsa::bench
