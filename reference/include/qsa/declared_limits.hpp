#pragma once
// What an outside kernel may declare beyond SPEC's ranges (docs/production-kernels.md): the shape
// of a scenario's step inputs that its constraints judge before any input is generated, and the
// named deviations from the contract that every comparison then accepts. The reference and
// qsacheck's own kernels declare none.

#include <cstdint>
#include <string>
#include <vector>

#include "qsa/step_types.hpp"
#include "qsa/types.hpp"

namespace qsa {

/// The fixed part of every step of a scenario (no values): what a kernel's declared constraints
/// admit or exclude before a campaign generates the scenario's steps.
struct StepGeometry {
  int64_t head_dim = 0;            // D
  int64_t rotary_dim = 0;          // rd
  int64_t num_heads = 0;           // HQ
  int64_t compress_ratio = 0;      // C
  int64_t storage_block_size = 0;  // S
  int64_t ring_capacity = 0;       // R
  StoreDtype store_dtype = StoreDtype::kBf16;
  bool mrope = false;                 // 3-axis positions with MRoPE sections
  bool ring_positions = false;        // the ring caches (t, h, w)
  bool strided_block_tables = false;  // block tables other than dense row-major (SPEC 1.1)
  bool padded_caches = false;         // padding between cache rows or blocks (SPEC 4)
};

/// Deviations from the contract a kernel declares; each is named, documented and stated in every
/// report. A deviation changes what counts as equal, never what the reference computes.
struct Deviations {
  /// Any negative output slot where SPEC 0 says -1 is equal to -1 (upstream's passthrough kind
  /// copies negative common slots as they are; vLLM only writes -1 there).
  bool negative_slots_pass_through = false;

  bool any() const { return negative_slots_pass_through; }
  /// The stable names, e.g. {"negative-slots-pass-through"}; empty when none.
  std::vector<std::string> names() const;
};

/// The name of the one deviation defined so far.
inline constexpr const char* kNegativeSlotsPassThrough = "negative-slots-pass-through";

/// `output` as the contract reads it under `deviations`: with negative slots passing through,
/// every negative slot_mapping entry becomes -1 (still "no slot" for every step that reads it),
/// except the poison pattern, so an element never written still shows. The engine applies it to
/// a backend's successful answer before any comparison, invariant or digest.
void apply_deviations(const Deviations& deviations, MetadataOutput* output);

}  // namespace qsa
