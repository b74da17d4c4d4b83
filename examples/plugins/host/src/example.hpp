#pragma once
// The example host plugin's internals: the contract on plain pointers from the DLTensors that
// qsacheck passes (include/qsacheck/plugin.h). qsacheck validates every input first, so nothing
// here re-validates. Planted variants change a rule in one place, guarded by `Variant`: each is a
// mistake a kernel author makes, and `qsacheck mutants --backend plugin:THIS.so` must catch every
// one (docs/planted-bugs.md, "The host example's variants").

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
  // Row roles: padding rows [M, N) hold whatever an earlier step left in a persistent buffer.
  kPaddingPositionZero,      // the Q path ropes padding rows at position 0, not at their given positions
  kPassthroughMinusOneOnly,  // passthrough copies every row's common slot up to N, testing it for -1 only
  // Call sequences: state an instance keeps between calls.
  kStepStatusSticks,  // the step status word lives in the instance: set by a group past the RoPE
                      // table, never reset, so every later step reports position-out-of-range
  // SPEC 6's rounding steps done another plausible way.
  kPoolReciprocalMultiply,  // pooling multiplies the sum by 1/C instead of dividing by C
  kRsqrtSingleRounding,     // rrms = 1/sqrt(mean + eps) rounded once, not sqrt then divide
  kRopeFusedMultiplyAdd,    // RoPE's a*c - b*s and b*c + a*s each with one fused multiply-add
  kBf16NanCanonical,        // bf16(NaN) is 0x7FC0 (PyTorch's canonical NaN), not 0x7FFF
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

// SPEC 6 (`variant` plants one of the numerical variants; kNone is the contract).
float to_float(Bf16 x);
Bf16 to_bf16(float x, Variant variant);
uint8_t to_fp8(Bf16 x, Variant variant);
void rms_norm(const Bf16* x, const Bf16* w, int64_t d, float eps, Bf16* y, Variant variant);
void rope(Bf16* y, const QsaPluginStepArgs& args, const int64_t position[3], Variant variant);
void pool(const std::vector<const Bf16*>& members, int64_t d, Bf16* out, Variant variant);

}  // namespace example
