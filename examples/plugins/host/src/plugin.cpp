// The table qsacheck loads: name, SPEC version, capabilities, planted variants, and the calls.

#include <cstdio>
#include <cstring>
#include <iterator>
#include <new>

#include "example.hpp"

namespace example {
namespace {

struct Instance {
  Variant variant = Variant::kNone;
  int64_t steps = 0;   // step update calls so far (a planted stray write fires once, from the third on)
  bool wrote = false;  // the planted stray write is done
  int32_t status_word = QSA_PLUGIN_STEP_OK;  // Variant::kStepStatusSticks: set once, never reset
};

// The planted variants (plugin:PATH.so#NAME), each a mistake qsacheck must catch, in the order of
// kVariantIds.
const QsaPluginVariant kVariants[] = {
    {"k-work-without-minimum", "k-work gives n_j = e_j/C - s_j/C items, so a chunk that closes no group gets none"},
    {"fp8-no-saturation", "fp8 stores cast without saturation: values that round beyond 448 become NaN"},
    {"stray-write-unused-row", "the third step update also writes the compressed cache's last row, which no step names"},
    {"stray-write-row-rewritten-later",
     "from the third step update on, the first decode also writes its next position's ring row, which its next step "
     "rewrites"},
    {"padding-position-zero", "the Q path ropes padding rows at position 0, not at the positions they are given"},
    {"passthrough-minus-one-only",
     "passthrough copies the common slot of every row up to N, testing it against -1 only"},
    {"step-status-sticks",
     "the step status word is kept in the instance and never reset: after a step with a group past the RoPE table, "
     "every step reports position-out-of-range"},
    {"pool-reciprocal-multiply", "pooling multiplies the sum by 1/C instead of dividing it by C"},
    {"rsqrt-single-rounding", "RMSNorm's 1/sqrt(mean + eps) rounded once, not the square root and then the division"},
    {"rope-fused-multiply-add", "RoPE computes a*c - b*s and b*c + a*s with a fused multiply-add each"},
    {"bf16-nan-canonical", "bf16 rounding gives NaN as 0x7FC0, not 0x7FFF"},
};
const Variant kVariantIds[] = {
    Variant::kKWorkWithoutMinimum, Variant::kFp8NoSaturation,
    Variant::kStrayWriteUnusedRow, Variant::kStrayWriteRowRewrittenLater,
    Variant::kPaddingPositionZero, Variant::kPassthroughMinusOneOnly,
    Variant::kStepStatusSticks,    Variant::kPoolReciprocalMultiply,
    Variant::kRsqrtSingleRounding, Variant::kRopeFusedMultiplyAdd,
    Variant::kBf16NanCanonical,
};
static_assert(std::size(kVariants) == std::size(kVariantIds), "one id per variant");

const QsaPluginCapabilities kCapabilities = {
    sizeof(QsaPluginCapabilities),
    QSA_PLUGIN_MEMORY_HOST,
    QSA_PLUGIN_KIND_COMPRESSED | QSA_PLUGIN_KIND_RING | QSA_PLUGIN_KIND_PASSTHROUGH,
    QSA_PLUGIN_DTYPE_BF16 | QSA_PLUGIN_DTYPE_FP8_E4M3,
    QSA_PLUGIN_FEATURE_STEP_UPDATE | QSA_PLUGIN_FEATURE_MROPE | QSA_PLUGIN_FEATURE_RING_POSITIONS |
        QSA_PLUGIN_FEATURE_STRIDED_BLOCK_TABLE | QSA_PLUGIN_FEATURE_PADDED_CACHE_STRIDES |
        QSA_PLUGIN_FEATURE_CONCURRENT_INSTANCES,
    {32, 512},     // head_dim
    {2, 512},      // rotary_dim
    {1, 1024},     // num_heads
    {1, 1024},     // compress_ratio
    {1, 1 << 20},  // storage_block_size
    {1, 1 << 20},  // ring_capacity
};

int32_t fail(QsaPluginError* error, int32_t code, const char* message) {
  std::snprintf(error->message, sizeof error->message, "%s", message);
  return code;
}

int32_t create(const QsaPluginInstanceArgs* args, void** instance, QsaPluginError* error) {
  Variant variant = Variant::kNone;
  if (args->variant != nullptr) {
    size_t i = 0;
    while (i < std::size(kVariants) && std::strcmp(args->variant, kVariants[i].name) != 0) ++i;
    if (i == std::size(kVariants)) return fail(error, QSA_PLUGIN_INVALID_INPUT, "unknown variant");
    variant = kVariantIds[i];
  }
  auto* created = new (std::nothrow) Instance{variant};
  if (created == nullptr) return fail(error, QSA_PLUGIN_INTERNAL, "out of memory");
  *instance = created;
  return QSA_PLUGIN_OK;
}

void destroy(void* instance) { delete static_cast<Instance*>(instance); }

int32_t metadata(void* instance, const QsaPluginMetadataArgs* args, QsaPluginError*) {
  const KindParams params{args->cache_kind, args->compress_ratio, args->storage_block_size, args->ring_capacity};
  write_metadata(build_metadata(params, args->batch, args->block_table, static_cast<Instance*>(instance)->variant),
                 args->out);
  return QSA_PLUGIN_OK;
}

int32_t step(void* instance, const QsaPluginStepArgs* args, QsaPluginError*) {
  auto* self = static_cast<Instance*>(instance);
  step_update(*args, self->variant);
  if (self->variant == Variant::kStepStatusSticks) {
    // A status word allocated once per instance (as a device flag often is) that a skipped group
    // sets and nothing clears. SPEC 5: a step reports position-out-of-range only when one of its
    // own groups lies past the RoPE table.
    auto* status = static_cast<int32_t*>(args->step_status.data);
    if (*status != QSA_PLUGIN_STEP_OK) self->status_word = *status;
    *status = self->status_word;
  }
  if (!self->wrote) self->wrote = stray_write(*args, self->variant, self->steps);
  ++self->steps;
  return QSA_PLUGIN_OK;
}

const QsaPlugin kPlugin = {
    QSA_PLUGIN_ABI_MAJOR,
    QSA_PLUGIN_ABI_MINOR,
    sizeof(QsaPlugin),
    "example-host",
    "1",
    "examples/plugins/host, " __VERSION__,
    &kCapabilities,
    kVariants,
    static_cast<int32_t>(std::size(kVariants)),
    create,
    destroy,
    metadata,
    step,
};

}  // namespace
}  // namespace example

extern "C" QSA_PLUGIN_EXPORT const QsaPlugin* qsa_plugin_entry(void) { return &example::kPlugin; }
