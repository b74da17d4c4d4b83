#pragma once
// The example host plugin's internals: the contract on plain pointers from the DLTensors that
// qsacheck passes (include/qsacheck/plugin.h). qsacheck validates every input first, so nothing
// here re-validates. Planted variants change a rule in one place, guarded by `Variant`.

#include <cstdint>
#include <vector>

#include "qsacheck/plugin.h"

namespace example {

enum class Variant {
  kNone,
  kKWorkWithoutMinimum,  // n_j = e_j/C - s_j/C: a request whose chunk closes no group gets no item
  kFp8NoSaturation,      // fp8 values beyond +-448 become NaN (0x7F) instead of +-448
  // SPEC 7.5, once, from the third step update of an instance on: one row outside the step's slots.
  kStrayWriteUnusedRow,          // the compressed cache's last row (a block no request holds)
  kStrayWriteRowRewrittenLater,  // the first step with a decode: the ring row of its next position,
                                 // which its next step rewrites
};

/// The planted stray writes at the step update's `call`-th call (from 0): whether one was written.
bool stray_write(const QsaPluginStepArgs& args, Variant variant, int64_t call);

using Bf16 = uint16_t;

// Element (i) or (i, j) of a 1-D or 2-D tensor, honouring strides when present.
template <typename T>
T at(const DLTensor& t, int64_t i) {
  const int64_t s = t.strides != nullptr ? t.strides[0] : 1;
  return static_cast<const T*>(t.data)[i * s];
}
template <typename T>
T at(const DLTensor& t, int64_t i, int64_t j) {
  const int64_t s0 = t.strides != nullptr ? t.strides[0] : t.shape[1];
  const int64_t s1 = t.strides != nullptr ? t.strides[1] : 1;
  return static_cast<const T*>(t.data)[i * s0 + j * s1];
}

// Metadata of one group, as plain vectors (the step update uses the slots).
struct Metadata {
  std::vector<int32_t> token_to_req, visible_blocks, k_work;
  std::vector<int64_t> logical_positions, slot_mapping;
  QsaBatchSplit split{};
};

// The kind's parameters as the metadata call receives them.
struct KindParams {
  uint32_t kind = QSA_PLUGIN_KIND_ID_COMPRESSED;
  int64_t ratio = 1;  // C, or the builder ratio Cb
  int64_t storage_block_size = 0;
  int64_t ring_capacity = 0;
};

Metadata build_metadata(const KindParams& params, const QsaPluginBatch& batch, const DLTensor& block_table,
                        Variant variant);
void write_metadata(const Metadata& m, const QsaPluginMetadata& out);
void step_update(const QsaPluginStepArgs& args, Variant variant);

// SPEC 6.
float to_float(Bf16 x);
Bf16 to_bf16(float x);
uint8_t to_fp8(Bf16 x, Variant variant);
void rms_norm(const Bf16* x, const Bf16* w, int64_t d, float eps, Bf16* y);
void rope(Bf16* y, const QsaPluginStepArgs& args, const int64_t position[3]);
void pool(const std::vector<const Bf16*>& members, int64_t d, Bf16* out);

}  // namespace example
