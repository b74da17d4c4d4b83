#pragma once
// A geometry chosen on the command line (`check`, `simulate`): head dim, rotary dim, query heads,
// block size, compress ratio, drafts, store dtype and MRoPE, each replacing the workload's own
// where it is set, and the `production` preset, the model's geometry (docs/workloads.md).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "qsa/step_types.hpp"
#include "qsa/traces/workloads.hpp"

namespace qsa::traces {

struct GeometryChoice {
  std::optional<int64_t> head_dim, rotary_dim, num_heads;              // D, rd, HQ
  std::optional<int64_t> block_size, compress_ratio, num_speculative;  // B, C, drafts
  std::optional<bool> mrope;
  /// Empty: the workload's. One: that dtype. Both: each scenario draws one (a mix of the two).
  std::vector<StoreDtype> store_dtypes;

  bool empty() const;
  /// "D=128 rd=64 HQ=4 C=4 B=16 drafts=3 MRoPE=on store=bf16,fp8_e4m3" (only what is set).
  std::string to_string() const;
};

/// The model's geometry: D 128, rd 64, HQ 4, C 4, B 16, 3 drafts, MRoPE (11, 11, 10), bf16 and fp8.
GeometryChoice production_geometry();

/// `workload` with `choice` applied to its template, to each of its geometries (a set C, drafts or
/// B replaces that part; duplicates are dropped) and to each mix member; two store dtypes make it
/// a mix of a bf16 and an fp8 copy. Each resulting geometry is checked as a scenario config would
/// be (validate_config, the ring capacity of SPEC 3) and those rejected are dropped (`ratios` with
/// --block-size 32 keeps the C and drafts whose ring divides 32); when a workload (or mix member)
/// keeps none, InputError whose field is the flag to change (--head-dim, --block-size, ...) and
/// whose message names the first rejected geometry.
Workload with_geometry(const Workload& workload, const GeometryChoice& choice);

}  // namespace qsa::traces
