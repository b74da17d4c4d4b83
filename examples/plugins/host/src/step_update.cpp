// SPEC 5 for each request: phase A (pool, norm, RoPE and store every group closing in the
// chunk, reading earlier members from the ring as it was before the step), then phase B (commit
// the chunk's last rows to the ring), then the Q path for every row.

#include <cstring>

#include "example.hpp"

namespace example {
namespace {

// A paged cache from its DLTensor: [blocks, rows, width] with strides in elements.
struct Cache {
  uint8_t* data;
  int64_t blocks, rows, block_stride, row_stride;
  int bytes;  // per element
  Cache(const DLTensor& t, int element_bytes)
      : data(static_cast<uint8_t*>(t.data)),
        blocks(t.shape[0]),
        rows(t.shape[1]),
        block_stride(t.strides[0]),
        row_stride(t.strides[1]),
        bytes(element_bytes) {}
  bool past(int64_t slot) const { return slot >= blocks * rows; }
  uint8_t* row(int64_t slot) const {
    return data + ((slot / rows) * block_stride + (slot % rows) * row_stride) * bytes;
  }
};

void store(const std::vector<Bf16>& row, bool fp8, uint8_t* dst, Variant variant) {
  for (size_t d = 0; d < row.size(); ++d) {
    if (fp8)
      dst[d] = to_fp8(row[d], variant);
    else
      std::memcpy(dst + 2 * d, &row[d], 2);
  }
}

void row_position(const QsaPluginStepArgs& a, int64_t t, int64_t out[3]) {
  const auto* p = static_cast<const int64_t*>(a.positions.data);
  const int64_t n = a.batch.num_actual_tokens;
  for (int axis = 0; axis < 3; ++axis) out[axis] = a.positions.ndim == 2 ? p[axis * n + t] : p[t];
}

}  // namespace

void step_update(const QsaPluginStepArgs& a, Variant variant) {
  const QsaPluginBatch& b = a.batch;
  const int64_t d = a.head_dim, c = a.compress_ratio, n = b.num_actual_tokens, nr = b.seq_lens.shape[0];
  const bool fp8 = a.store_dtype == QSA_PLUGIN_STORE_FP8_E4M3;
  const Cache ring(a.ring_cache, 2);
  const Cache compressed(a.compressed_cache, fp8 ? 1 : 2);
  const int64_t tail = 4 * ((d + 3) / 4);  // P: where a ring row keeps (t, h, w)
  const auto* keys = static_cast<const Bf16*>(a.keys.data);
  const Metadata cmeta =
      build_metadata({QSA_PLUGIN_KIND_ID_COMPRESSED, c, a.storage_block_size, 0}, b, a.block_table, Variant::kNone);
  const Metadata rmeta =
      build_metadata({QSA_PLUGIN_KIND_ID_RING, 1, 0, a.ring_capacity}, b, a.ring_block_table, Variant::kNone);
  int32_t status = QSA_PLUGIN_STEP_OK;
  // The ring slot of position m of request j, -1 for a missing block.
  auto ring_slot = [&](int64_t j, int64_t m) -> int64_t {
    if (a.ring_block_table.shape[1] == 0) return -1;
    const int64_t block = at<int32_t>(a.ring_block_table, j, 0);
    return block < 0 || block >= ring.blocks ? -1 : block * a.ring_capacity + m % a.ring_capacity;
  };
  std::vector<Bf16> zeros(d, 0), mean(d), row(d);
  for (int64_t j = 0; j < nr; ++j) {  // phase A
    const int64_t first = at<int32_t>(b.query_start_loc, j), end = at<int32_t>(b.query_start_loc, j + 1);
    const int64_t e = at<int32_t>(b.seq_lens, j), s = e - (end - first);
    if (end == first) continue;
    for (int64_t g = s / c; g < e / c; ++g) {
      const int64_t slot = cmeta.slot_mapping[first + (g * c + c - 1 - s)];
      if (slot < 0 || compressed.past(slot)) continue;
      std::vector<const Bf16*> members;
      for (int64_t m = g * c; m < g * c + c; ++m) {
        const int64_t rs = ring_slot(j, m);
        members.push_back(m >= s   ? keys + (first + m - s) * d
                          : rs < 0 ? zeros.data()
                                   : reinterpret_cast<const Bf16*>(ring.row(rs)));
      }
      int64_t pos[3] = {g * c, g * c, g * c};
      if (a.ring_positions) {
        const int64_t rs = ring_slot(j, g * c);
        if (g * c >= s)
          row_position(a, first + g * c - s, pos);
        else if (rs < 0)
          pos[0] = pos[1] = pos[2] = 0;
        else
          std::memcpy(pos, ring.row(rs) + 2 * tail, sizeof pos);
        if (pos[0] < 0 || pos[0] >= a.max_position || pos[1] < 0 || pos[1] >= a.max_position || pos[2] < 0 ||
            pos[2] >= a.max_position) {
          status = QSA_PLUGIN_STEP_POSITION_OUT_OF_RANGE;
          continue;
        }
      }
      pool(members, d, mean.data(), variant);
      rms_norm(mean.data(), static_cast<const Bf16*>(a.w_k.data), d, a.eps, row.data(), variant);
      rope(row.data(), a, pos, variant);
      store(row, fp8, compressed.row(slot), variant);
    }
  }
  for (int64_t t = 0; t < n; ++t) {  // phase B: rows of real requests carry ring slots
    const int64_t slot = rmeta.slot_mapping[t];
    if (slot < 0 || ring.past(slot)) continue;
    std::memcpy(ring.row(slot), keys + t * d, 2 * d);
    if (a.ring_positions) {
      int64_t pos[3];
      row_position(a, t, pos);
      std::memcpy(ring.row(slot) + 2 * tail, pos, sizeof pos);
    }
  }
  const auto* queries = static_cast<const Bf16*>(a.queries.data);
  auto* q_out = static_cast<uint8_t*>(a.q_out.data);
  const int64_t m = at<int32_t>(b.query_start_loc, nr);  // rows M..N-1 are padding
  for (int64_t t = 0; t < n; ++t) {  // Q path, padding rows included, each at its given positions
    int64_t pos[3];
    row_position(a, t, pos);
    // "Padding rows are discarded anyway": but q_out covers every row (SPEC 5), and a graph's padding
    // rows carry the positions an earlier step left in the buffer, not 0.
    if (variant == Variant::kPaddingPositionZero && t >= m) pos[0] = pos[1] = pos[2] = 0;
    for (int64_t h = 0; h < a.num_heads; ++h) {
      const int64_t offset = (t * a.num_heads + h) * d;
      rms_norm(queries + offset, static_cast<const Bf16*>(a.w_q.data), d, a.eps, row.data(), variant);
      rope(row.data(), a, pos, variant);
      store(row, fp8, q_out + offset * (fp8 ? 1 : 2), variant);
    }
  }
  *static_cast<int32_t*>(a.step_status.data) = status;
}

bool stray_write(const QsaPluginStepArgs& a, Variant variant, int64_t call) {
  if (call < 2 || (variant != Variant::kStrayWriteUnusedRow && variant != Variant::kStrayWriteRowRewrittenLater))
    return false;
  const bool fp8 = a.store_dtype == QSA_PLUGIN_STORE_FP8_E4M3;
  const Cache compressed(a.compressed_cache, fp8 ? 1 : 2);
  const Cache ring(a.ring_cache, 2);
  if (variant == Variant::kStrayWriteUnusedRow) {
    if (compressed.blocks == 0) return false;
    std::memset(compressed.row(compressed.blocks * compressed.rows - 1), 0x5A, a.head_dim * compressed.bytes);
    return true;
  }
  // A decode (fewer rows than the ring holds) of request j ends at e: this step names the ring rows of
  // its positions, the next names position e's. Row e mod R is position e - R's, before the open group.
  const QsaPluginBatch& b = a.batch;
  for (int64_t j = 0; j + 1 < b.query_start_loc.shape[0]; ++j) {
    const int64_t q = at<int32_t>(b.query_start_loc, j + 1) - at<int32_t>(b.query_start_loc, j);
    if (q == 0 || q >= a.ring_capacity || a.ring_block_table.shape[1] == 0) continue;
    const int64_t block = at<int32_t>(a.ring_block_table, j, 0);
    if (block < 0 || block >= ring.blocks) continue;
    std::memset(ring.row(block * a.ring_capacity + at<int32_t>(b.seq_lens, j) % a.ring_capacity), 0x5A,
                2 * a.head_dim);
    return true;
  }
  return false;
}

}  // namespace example
