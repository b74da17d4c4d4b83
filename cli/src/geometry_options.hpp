#pragma once
// The geometry flags of `check` and `simulate`: --preset production, --head-dim, --rotary-dim,
// --query-heads, --block-size, --compress-ratio, --drafts, --store-dtype and --mrope. Each set
// flag replaces the workload's own value (traces::with_geometry); a flag given beside the preset
// overrides the preset's value.

#include <string>

#include <CLI/CLI.hpp>

#include "qsa/traces/geometry_choice.hpp"

namespace qsa::cli {

struct GeometryOptions {  // as typed; empty: not given
  std::string preset, head_dim, rotary_dim, query_heads, block_size, compress_ratio, drafts, store_dtype, mrope;
};

/// Adds the flags to `command`, in a "Geometry" group.
void add_geometry_options(CLI::App* command, GeometryOptions* options);

/// The choice the flags make. Throws InputError naming the flag: not-an-integer, out-of-range,
/// unknown-preset, unknown-dtype or not-on-off. Whether the geometry suits a workload is checked
/// when it is applied (traces::with_geometry).
traces::GeometryChoice parse_geometry_options(const GeometryOptions& options);

}  // namespace qsa::cli
