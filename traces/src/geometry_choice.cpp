// Command-line geometry applied to a workload model; validated as a scenario config would be.
#include "qsa/traces/geometry_choice.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/scenario_file.hpp"

namespace qsa::traces {
namespace {

// The config fields validate_config and resolve_workload name, and the flag that sets each.
std::string flag_of(const std::string& field) {
  static const std::map<std::string, std::string> flags = {
      {"config.head_dim", "--head-dim"},
      {"config.rotary_dim", "--rotary-dim"},
      {"config.num_heads", "--query-heads"},
      {"config.block_size", "--block-size"},
      {"block_size", "--block-size"},
      {"config.compress_ratio", "--compress-ratio"},
      {"compress_ratio", "--compress-ratio"},
      {"config.num_speculative_tokens", "--drafts"},
      {"num_speculative_tokens", "--drafts"},
      {"config.ring_capacity", "--block-size"},
  };
  const auto it = flags.find(field);
  return it == flags.end() ? field : it->second;
}

std::string geometry_text(const ScenarioConfig& c) {
  return "D=" + std::to_string(c.head_dim) + " rd=" + std::to_string(c.rotary_dim) +
         " HQ=" + std::to_string(c.num_heads) + " C=" + std::to_string(c.compress_ratio) +
         " B=" + std::to_string(c.block_size) + " drafts=" + std::to_string(c.num_speculative_tokens);
}

// The geometries of a leaf workload that resolve and pass validate_config; when none does, the
// first one's error, naming the flag.
std::vector<Geometry> valid_geometries(const Workload& leaf) {
  std::vector<Geometry> geometries = leaf.geometries, valid;
  if (geometries.empty())
    geometries.push_back({leaf.config.compress_ratio, leaf.config.num_speculative_tokens, leaf.config.block_size});
  std::optional<Error> first;
  for (const Geometry& g : geometries) {
    Workload one = leaf;
    one.geometries = {g};
    ScenarioConfig shown = one.config;
    shown.compress_ratio = g.compress_ratio;
    shown.num_speculative_tokens = g.num_speculative_tokens;
    shown.block_size = g.block_size;
    try {
      validate_config(resolve_workload(one, 1).config);
      valid.push_back(g);
    } catch (const InputError& e) {
      // The cache budget is a limit of this machine, not of the geometry: every scenario's caches
      // are sized against it when a campaign or simulation starts.
      if (e.error().rule == "too-large") {
        valid.push_back(g);
        continue;
      }
      if (first) continue;
      first = e.error();
      first->field = flag_of(first->field);
      first->index = -1;
      first->message = "workload " + leaf.name + " at " + geometry_text(shown) + ": " + first->message;
    }
  }
  if (valid.empty()) throw InputError(*first);
  return valid;
}

Workload apply(const Workload& workload, const GeometryChoice& c) {
  Workload w = workload;
  for (Workload& member : w.mix) member = apply(member, c);
  ScenarioConfig& t = w.config;
  if (c.head_dim) t.head_dim = *c.head_dim;
  if (c.rotary_dim) t.rotary_dim = *c.rotary_dim;
  if (c.num_heads) t.num_heads = *c.num_heads;
  if (c.mrope) t.mrope = *c.mrope;
  if (c.compress_ratio) t.compress_ratio = *c.compress_ratio;
  if (c.num_speculative) t.num_speculative_tokens = *c.num_speculative;
  if (c.block_size) t.block_size = *c.block_size;
  std::vector<Geometry> geometries;
  for (Geometry g : w.geometries) {
    if (c.compress_ratio) g.compress_ratio = *c.compress_ratio;
    if (c.num_speculative) g.num_speculative_tokens = *c.num_speculative;
    if (c.block_size) g.block_size = *c.block_size;
    const bool seen = std::any_of(geometries.begin(), geometries.end(), [&](const Geometry& h) {
      return h.compress_ratio == g.compress_ratio && h.num_speculative_tokens == g.num_speculative_tokens &&
             h.block_size == g.block_size;
    });
    if (!seen) geometries.push_back(g);
  }
  w.geometries = geometries;
  if (!w.mix.empty()) return w;  // its members were applied and checked above
  if (c.store_dtypes.size() == 1) t.store_dtype = c.store_dtypes[0];
  if (c.store_dtypes.size() > 1) {
    Workload base = w;
    for (StoreDtype dtype : c.store_dtypes) {
      Workload member = base;
      member.name = base.name + "-" + to_string(dtype);
      member.config.store_dtype = dtype;
      member.geometries = valid_geometries(member);
      w.mix.push_back(member);
    }
    return w;
  }
  w.geometries = valid_geometries(w);
  return w;
}

}  // namespace

bool GeometryChoice::empty() const {
  return !head_dim && !rotary_dim && !num_heads && !block_size && !compress_ratio && !num_speculative && !mrope &&
         store_dtypes.empty();
}

std::string GeometryChoice::to_string() const {
  std::string out;
  auto add = [&out](const std::string& part) { out += (out.empty() ? "" : " ") + part; };
  if (head_dim) add("D=" + std::to_string(*head_dim));
  if (rotary_dim) add("rd=" + std::to_string(*rotary_dim));
  if (num_heads) add("HQ=" + std::to_string(*num_heads));
  if (compress_ratio) add("C=" + std::to_string(*compress_ratio));
  if (block_size) add("B=" + std::to_string(*block_size));
  if (num_speculative) add("drafts=" + std::to_string(*num_speculative));
  if (mrope) add(std::string("MRoPE=") + (*mrope ? "on" : "off"));
  std::string dtypes;
  for (StoreDtype d : store_dtypes) dtypes += (dtypes.empty() ? "" : ",") + std::string(qsa::to_string(d));
  if (!dtypes.empty()) add("store=" + dtypes);
  return out;
}

GeometryChoice production_geometry() {
  GeometryChoice g;
  g.head_dim = 128;
  g.rotary_dim = 64;
  g.num_heads = 4;
  g.compress_ratio = 4;
  g.block_size = 16;
  g.num_speculative = 3;
  g.mrope = true;  // rd / 2 = 32 pairs split (11, 11, 10): ScenarioConfig::mrope_sections
  g.store_dtypes = {StoreDtype::kBf16, StoreDtype::kFp8E4m3};
  return g;
}

Workload with_geometry(const Workload& workload, const GeometryChoice& choice) {
  if (choice.empty()) return workload;
  return apply(workload, choice);
}

}  // namespace qsa::traces
