#include "geometry_options.hpp"

#include "number_options.hpp"
#include "qsa/traces/json_reader.hpp"

namespace qsa::cli {

void add_geometry_options(CLI::App* command, GeometryOptions* o) {
  const std::string group = "Geometry (each replaces the workload's; docs/workloads.md)";
  command->add_option("--preset", o->preset,
                      "production: the model's geometry, D=128, rd=64, HQ=4, C=4, B=16, 3 drafts, MRoPE (11, 11, "
                      "10), each scenario bf16 or fp8 e4m3; the flags below override its values")
      ->group(group);
  command->add_option("--head-dim", o->head_dim, "D, a power of two, 32 ... 512")->group(group);
  command->add_option("--rotary-dim", o->rotary_dim, "rd, even, 2 ... D")->group(group);
  command->add_option("--query-heads", o->query_heads, "HQ, 1 ... 1024")->group(group);
  command->add_option("--block-size", o->block_size, "B, a multiple of C, with a ring capacity under SPEC 3")
      ->group(group);
  command->add_option("--compress-ratio", o->compress_ratio, "C, 2 ... 1024 (SPEC 1.3; B must hold it, and the ring its drafts)")->group(group);
  command->add_option("--drafts", o->drafts, "Speculative tokens per decode, 0 ... 64")->group(group);
  command->add_option("--store-dtype", o->store_dtype,
                      "bf16, fp8 (e4m3) or both (each scenario draws one): the compressed cache and q_out")
      ->group(group);
  command->add_option("--mrope", o->mrope, "on or off: 3-axis positions in the real model's (11, 11, 10) proportions")
      ->group(group);
}

namespace {

// Ranges wide enough to reach validate_config, which owns the rules and names the flag.
std::optional<int64_t> integer(const std::string& flag, const std::string& text) {
  if (text.empty()) return std::nullopt;
  return parse_integer_option(flag, text, 0, int64_t{1} << 20);
}

}  // namespace

traces::GeometryChoice parse_geometry_options(const GeometryOptions& o) {
  traces::GeometryChoice g;
  if (o.preset == "production")
    g = traces::production_geometry();
  else if (!o.preset.empty())
    throw InputError(Error{"--preset", -1, "unknown-preset",
                                   "unknown preset '" + o.preset.substr(0, 40) + "'; the one preset is production"});
  auto set = [](std::optional<int64_t>& field, std::optional<int64_t> value) {
    if (value) field = value;
  };
  set(g.head_dim, integer("--head-dim", o.head_dim));
  set(g.rotary_dim, integer("--rotary-dim", o.rotary_dim));
  set(g.num_heads, integer("--query-heads", o.query_heads));
  set(g.block_size, integer("--block-size", o.block_size));
  set(g.compress_ratio, integer("--compress-ratio", o.compress_ratio));
  // The drafts decide the ring capacity, which resolving a workload derives (and checks against
  // B) before validate_config sees the drafts' own range [0, 64]; so it is ranged here, and
  // --drafts 65 is named as out of range rather than as R not dividing B.
  if (!o.drafts.empty()) g.num_speculative = parse_integer_option("--drafts", o.drafts, 0, 64);
  if (o.store_dtype == "bf16")
    g.store_dtypes = {StoreDtype::kBf16};
  else if (o.store_dtype == "fp8" || o.store_dtype == "fp8_e4m3")
    g.store_dtypes = {StoreDtype::kFp8E4m3};
  else if (o.store_dtype == "both")
    g.store_dtypes = {StoreDtype::kBf16, StoreDtype::kFp8E4m3};
  else if (!o.store_dtype.empty())
    throw InputError(Error{"--store-dtype", -1, "unknown-dtype",
                                   "'" + o.store_dtype.substr(0, 40) + "' is not bf16, fp8 or both"});
  if (o.mrope == "on" || o.mrope == "off")
    g.mrope = o.mrope == "on";
  else if (!o.mrope.empty())
    throw InputError(Error{"--mrope", -1, "not-on-off", "'" + o.mrope.substr(0, 40) + "' is not on or off"});
  return g;
}

}  // namespace qsa::cli
