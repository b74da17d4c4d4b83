#pragma once
// A small builder for hand-checked step-update cases: requests with chunk positions, dense caches
// whose unused bytes are poisoned, and expected rows computed with the numeric building blocks
// (themselves tested exhaustively in numerics_test.cpp), so a test pins which members, which
// position and which slot the step uses.

#include <cstring>
#include <functional>
#include <vector>

#include "qsa/step_types.hpp"

namespace qsa::testing {

struct StepCase {
  StepInput in;
  StepCaches caches;

  // Key of (request, position): a pure function so a misplaced row is recognisable.
  std::function<float(int64_t request, int64_t position, int64_t d)> key_value = [](int64_t r, int64_t p, int64_t d) {
    return static_cast<float>(d) + 1000.0f * static_cast<float>(r) + 10.0f * static_cast<float>(p);
  };

  /// Requests given as (chunk start s_j, query length q_j); N = M + padding_rows.
  StepCase(const std::vector<std::pair<int64_t, int64_t>>& chunks, int64_t padding_rows, int64_t c, int64_t s,
           int64_t r, std::vector<std::vector<int32_t>> block_table, std::vector<std::vector<int32_t>> ring_block_table,
           int64_t num_compressed_blocks, int64_t num_ring_blocks, bool ring_positions = false,
           StoreDtype dtype = StoreDtype::kBf16, int64_t head_dim = 32, int64_t rotary_dim = 8) {
    in.config.compress_ratio = c;
    in.config.storage_block_size = s;
    in.config.ring_capacity = r;
    in.config.head_dim = head_dim;
    in.config.rotary_dim = rotary_dim;
    in.config.num_heads = 2;
    in.config.ring_positions = ring_positions;
    in.config.store_dtype = dtype;
    in.batch.query_start_loc = {0};
    for (const auto& [start, q] : chunks) {
      in.batch.query_start_loc.push_back(in.batch.query_start_loc.back() + q);
      in.batch.seq_lens.push_back(start + q);
    }
    const int64_t m = in.batch.query_start_loc.back();
    in.batch.num_actual_tokens = m + padding_rows;
    for (int64_t t = 0; t < m + padding_rows; ++t) in.batch.common_slot_mapping.push_back(t < m ? 5000 + t : -1);
    in.block_table = BlockTable::from_rows(block_table);
    in.ring_block_table = BlockTable::from_rows(ring_block_table);
    in.config.max_position = 64;
    in.config.cos_sin =
        std::make_shared<const std::vector<Bf16>>(make_cos_sin_table(10000.0, rotary_dim, in.config.max_position));
    for (int64_t d = 0; d < head_dim; ++d) {
      in.config.w_k.push_back(bf16_from_float(0.0625f * static_cast<float>(d % 5)));
      in.config.w_q.push_back(bf16_from_float(-0.03125f * static_cast<float>(d % 3)));
    }
    caches.ring.layout = CacheLayout::dense(num_ring_blocks, r, ring_row_width(head_dim, ring_positions), 2);
    caches.ring.bytes.assign(static_cast<size_t>(caches.ring.layout.size_bytes()), 0);
    caches.compressed.layout = CacheLayout::dense(num_compressed_blocks, s, head_dim, element_bytes(dtype));
    caches.compressed.bytes.assign(static_cast<size_t>(caches.compressed.layout.size_bytes()), 0);
    fill_rows();
  }

  /// Recomputes keys, queries and positions (1-D, the logical position; padding rows 0).
  void fill_rows() {
    const int64_t n = in.num_tokens();
    const int64_t d = in.config.head_dim;
    in.keys.assign(static_cast<size_t>(n * d), 0);
    in.queries.assign(static_cast<size_t>(n * in.config.num_heads * d), 0);
    in.positions.assign(static_cast<size_t>(n), 0);
    in.position_axes = 1;
    for (int64_t t = 0; t < n; ++t) {
      const auto [j, p] = origin(t);
      for (int64_t e = 0; e < d; ++e) {
        in.keys[t * d + e] = bf16_from_float(j >= 0 ? key_value(j, p, e) : 7.0f + static_cast<float>(e));
        for (int64_t h = 0; h < in.config.num_heads; ++h)
          in.queries[(t * in.config.num_heads + h) * d + e] =
              bf16_from_float(static_cast<float>((t + 1) * (h + 2)) + 0.25f * static_cast<float>(e));
      }
      in.positions[t] = j >= 0 ? p : 0;
    }
  }

  /// (request, position) of row t, or (-1, -1) for a padding row.
  std::pair<int64_t, int64_t> origin(int64_t t) const {
    const Batch& b = in.batch;
    for (int64_t j = 0; j < b.num_requests(); ++j)
      if (t >= b.query_start_loc[j] && t < b.query_start_loc[j + 1])
        return {j, b.chunk_start(j) + t - b.query_start_loc[j]};
    return {-1, -1};
  }

  std::vector<Bf16> key_of(int64_t request, int64_t position) const {
    std::vector<Bf16> k(static_cast<size_t>(in.config.head_dim));
    for (int64_t e = 0; e < in.config.head_dim; ++e) k[e] = bf16_from_float(key_value(request, position, e));
    return k;
  }

  /// Writes a committed key (and position tail) of (request, position) into the ring before the step.
  void put_ring(int64_t block, int64_t request, int64_t position, std::array<int64_t, 3> tail = {-1, -1, -1}) {
    const int64_t slot = block * in.config.ring_capacity + position % in.config.ring_capacity;
    const std::vector<Bf16> k = key_of(request, position);
    std::memcpy(caches.ring.bytes.data() + caches.ring.layout.byte_offset(slot, 0), k.data(), k.size() * 2);
    if (in.config.ring_positions) {
      if (tail[0] < 0) tail = {position, position, position};
      std::memcpy(
          caches.ring.bytes.data() + caches.ring.layout.byte_offset(slot, ring_position_offset(in.config.head_dim)),
          tail.data(), 24);
    }
  }

  std::vector<Bf16> ring_key(int64_t slot) const {
    std::vector<Bf16> k(static_cast<size_t>(in.config.head_dim));
    std::memcpy(k.data(), caches.ring.bytes.data() + caches.ring.layout.byte_offset(slot, 0), k.size() * 2);
    return k;
  }

  std::array<int64_t, 3> ring_tail(int64_t slot) const {
    std::array<int64_t, 3> tail{};
    std::memcpy(
        tail.data(),
        caches.ring.bytes.data() + caches.ring.layout.byte_offset(slot, ring_position_offset(in.config.head_dim)), 24);
    return tail;
  }

  std::vector<uint8_t> compressed_row(int64_t slot) const {
    const auto* p = caches.compressed.bytes.data() + caches.compressed.layout.byte_offset(slot, 0);
    return {p, p + in.config.head_dim * caches.compressed.layout.element_bytes};
  }

  /// store(rope(norm(pool(members), w_k), position)) in the store dtype.
  std::vector<uint8_t> expected_compressed(const std::vector<std::vector<Bf16>>& members,
                                           std::array<int64_t, 3> position) const {
    std::vector<const Bf16*> ptrs;
    for (const auto& m : members) ptrs.push_back(m.data());
    std::vector<Bf16> mean(static_cast<size_t>(in.config.head_dim)), row(static_cast<size_t>(in.config.head_dim));
    pool_group(ptrs.data(), in.config.compress_ratio, in.config.head_dim, mean.data());
    rms_norm(mean.data(), in.config.w_k.data(), in.config.head_dim, in.config.eps, row.data());
    rope_neox(row.data(), in.config.head_dim, in.config.rotary_dim, position, in.config.mrope_sections,
              in.config.cos_sin_data());
    return to_store(row);
  }

  std::vector<uint8_t> to_store(const std::vector<Bf16>& row) const {
    std::vector<uint8_t> out;
    for (Bf16 v : row) {
      if (in.config.store_dtype == StoreDtype::kBf16) {
        out.push_back(static_cast<uint8_t>(v & 0xFF));
        out.push_back(static_cast<uint8_t>(v >> 8));
      } else {
        out.push_back(e4m3_from_bf16(v));
      }
    }
    return out;
  }
};

}  // namespace qsa::testing
