// The catalog of named workloads. docs/workloads.md explains each one; the property suite
// (traces/tests/simulator_test.cpp) checks that each exercises what its name promises.
#include "qsa/traces/workloads.hpp"

#include <algorithm>
#include <functional>
#include <utility>

#include "qsa/ring_capacity.hpp"
#include "qsa/traces/azure_fit.hpp"
#include "qsa/traces/geometry_choice.hpp"
#include "qsa/traces/json_reader.hpp"

namespace qsa::traces {

namespace {

// Every (C, drafts, B = R * multiple) combination; R from the seed rule of SPEC 3.
std::vector<Geometry> geometries_over(std::initializer_list<int64_t> ratios, std::initializer_list<int64_t> drafts,
                                      std::initializer_list<int64_t> ring_multiples) {
  std::vector<Geometry> out;
  for (int64_t c : ratios)
    for (int64_t d : drafts)
      for (int64_t m : ring_multiples) out.push_back({c, d, seed_ring_capacity(c, d) * m});
  return out;
}

Workload make_default() {
  Workload w;
  w.name = "default";
  w.description = "close to the real model, scaled for the CPU reference: C=4, B 16 or 64, 3 drafts (R=8), D=32";
  w.config.head_dim = 32;
  w.config.rotary_dim = 16;
  w.config.num_heads = 2;
  w.config.max_num_batched_tokens = 256;
  w.config.max_num_seqs = 16;
  w.geometries = {{4, 3, 16}, {4, 3, 64}};
  w.prompt_tokens = LengthTable({{0, 1}, {250000, 12}, {500000, 40}, {750000, 96}, {950000, 200}, {kLevelScale, 320}});
  w.output_tokens = LengthTable({{0, 1}, {250000, 6}, {500000, 20}, {750000, 48}, {950000, 120}, {kLevelScale, 240}});
  w.arrivals_per_step_milli = 400;
  w.preempt_per_mille = 15;
  w.family_per_mille = 250;
  w.negative_slot_per_mille = 60;
  return w;
}

Workload make_tiny_blocks() {
  Workload w = make_default();
  w.name = "tiny-blocks";
  w.description = "B = C (S = 1): every group fills a block; SPEC 3 then forces 0 drafts (R = C)";
  w.geometries = {{2, 0, 2}, {4, 0, 4}, {8, 0, 8}};
  w.prompt_tokens = LengthTable({{0, 1}, {500000, 24}, {900000, 80}, {kLevelScale, 128}});
  w.output_tokens = LengthTable({{0, 1}, {500000, 16}, {900000, 48}, {kLevelScale, 96}});
  return w;
}

Workload make_ratios() {
  Workload w = make_default();
  w.name = "ratios";
  w.description = "compress ratio C drawn from 2, 4, 8, 16 per scenario, 1-4 drafts, B = R, 2R or 4R";
  w.geometries = geometries_over({2, 4, 8, 16}, {1, 2, 3, 4}, {1, 2, 4});
  w.output_tokens = LengthTable({{0, 1}, {500000, 32}, {900000, 96}, {kLevelScale, 200}});
  return w;
}

Workload make_many_drafts() {
  Workload w = make_default();
  w.name = "many-drafts";
  w.description = "4-13 drafts per decode (R up to 20), most of them rejected";
  w.geometries = geometries_over({4}, {4, 5, 6, 7, 8, 9, 10, 11, 12, 13}, {1, 2});
  w.output_tokens = LengthTable({{0, 8}, {500000, 48}, {900000, 140}, {kLevelScale, 240}});
  w.draft_accept_per_mille = 350;
  w.fewer_drafts_per_mille = 200;
  return w;
}

Workload make_ring_minimum() {
  Workload w = make_default();
  w.name = "ring-minimum";
  w.description = "ring at the SPEC 3 minimum with no slack (C + drafts = R, B = R or 2R), long decodes wrapping it";
  w.geometries = {{2, 2, 4}, {2, 2, 8}, {4, 4, 8}, {4, 4, 16}, {4, 8, 12}, {4, 8, 24}, {8, 8, 16}};
  w.config.max_num_seqs = 8;
  w.prompt_tokens = LengthTable({{0, 1}, {500000, 16}, {kLevelScale, 64}});
  w.output_tokens = LengthTable({{0, 100}, {500000, 300}, {kLevelScale, 800}});
  w.initial_requests = 2;
  w.arrivals_per_step_milli = 60;
  w.draft_accept_per_mille = 800;
  w.preempt_per_mille = 5;
  return w;
}

Workload make_production_blocks() {
  Workload w = make_default();
  w.name = "production-blocks";
  w.description = "block sizes seen in production (16, 784, 800, 848, 1568, 1600, 1616), C=4, 1-4 drafts (R=8)";
  w.geometries.clear();
  for (int64_t b : {16, 784, 800, 848, 1568, 1600, 1616})
    for (int64_t d : {1, 2, 3, 4}) w.geometries.push_back({4, d, b});
  w.config.max_num_batched_tokens = 512;
  w.prompt_tokens = LengthTable({{0, 1}, {300000, 200}, {600000, 1000}, {900000, 2500}, {kLevelScale, 4000}});
  w.output_tokens = LengthTable({{0, 1}, {500000, 32}, {kLevelScale, 200}});
  w.family_per_mille = 400;
  w.num_families = 2;
  return w;
}

Workload make_preemption_storm() {
  Workload w = make_default();
  w.name = "preemption-storm";
  w.description = "a small block pool and frequent preemptions: requests recomputed from 0 on new blocks";
  w.compressed_pool_per_mille = 150;
  w.preempt_per_mille = 150;
  w.arrivals_per_step_milli = 800;
  w.initial_requests = 8;
  return w;
}

Workload make_prefix_sharing() {
  Workload w = make_default();
  w.name = "prefix-sharing";
  w.description = "most prompts from two families: first chunks start on shared, read-only blocks";
  w.geometries = {{4, 3, 16}, {4, 3, 32}, {4, 1, 16}};
  w.prompt_tokens = LengthTable({{0, 16}, {500000, 120}, {kLevelScale, 300}});
  w.family_per_mille = 900;
  w.num_families = 2;
  w.arrivals_per_step_milli = 600;
  return w;
}

Workload make_mrope_fp8() {
  Workload w = make_default();
  w.name = "mrope-fp8";
  w.description = "MRoPE on (3-axis positions, ring caches them) and the compressed cache stored as fp8 e4m3";
  w.config.mrope = true;
  w.config.store_dtype = StoreDtype::kFp8E4m3;
  return w;
}

// The model's geometry (production_geometry(): D 128, rd 64, HQ 4, C 4, B 16, 3 drafts) on the
// default scheduler: MRoPE on and off, each with bf16 and fp8 e4m3 caches, one per scenario.
Workload make_production() {
  Workload base = make_default();
  base.name = "production";
  base.description =
      "the model's geometry: D=128, rd=64, HQ=4, C=4, B=16, 3 drafts (R=8); MRoPE (11, 11, 10) on or off, bf16 or "
      "fp8 e4m3";
  GeometryChoice geometry = production_geometry();
  Workload w = with_geometry(base, geometry);  // production-bf16, production-fp8_e4m3 (MRoPE on)
  geometry.mrope = false;
  for (Workload member : with_geometry(base, geometry).mix) {
    member.name += "-no-mrope";
    w.mix.push_back(member);
  }
  return w;
}

// One scenario per path of the CUDA step-update kernel, in turn: D 32 ... 512, rd whose pairs fit
// the vector RoPE (fast: rd = D/2 takes the halves layout, another rd the contiguous one) or not
// (generic: rd / 2 not a power-of-two multiple of the lane chunk), bf16 and fp8
// (qsa/cuda/kernel_path.hpp). Short scenarios: the default campaign runs 30 of them.
Workload make_layouts() {
  Workload base = make_default();
  base.name = "layouts";
  base.description =
      "one scenario per CUDA kernel path in turn: D 32, 64, 128, 256, 512 x fast halves, fast or generic rd x bf16 "
      "or fp8";
  Workload w = base;
  w.mix_in_turn = true;
  const std::pair<int64_t, int64_t> dims[] = {{32, 16},  {32, 32},  {32, 24},   {64, 32},  {64, 16},
                                              {64, 24},  {128, 64}, {128, 32},  {128, 48}, {256, 128},
                                              {256, 64}, {256, 48}, {512, 256}, {512, 64}, {512, 48}};
  for (const auto& [d, rd] : dims)
    for (StoreDtype dtype : {StoreDtype::kBf16, StoreDtype::kFp8E4m3}) {
      GeometryChoice g;
      g.head_dim = d;
      g.rotary_dim = rd;
      g.store_dtypes = {dtype};
      Workload member = with_geometry(base, g);
      member.name = "layouts-D" + std::to_string(d) + "-rd" + std::to_string(rd) + "-" + to_string(dtype);
      w.mix.push_back(member);
    }
  return w;
}

// One member per input class that no other model reaches, in turn, so five
// consecutive seeds take each once; short scenarios, the default campaign runs five of them.
Workload make_edges() {
  Workload base = make_default();
  base.name = "edges";
  base.description =
      "one scenario per class in turn: C not a power of two, MRoPE splits other than 11:11:10, block ids near "
      "INT32_MAX past the cache, more than 1024 requests in a step, a zero-length request first";
  Workload w = base;
  w.mix_in_turn = true;

  Workload ratio = base;
  ratio.name = "ratio";
  ratio.geometries = geometries_over({3, 5, 6, 12}, {1, 3}, {1, 2});

  Workload split = base;
  split.name = "mrope-split";
  split.config.mrope = true;
  split.config.rotary_dim = 24;  // hp = 12: room for splits of every shape
  split.draw_mrope_split = true;

  Workload far = base;
  far.name = "far-blocks";
  far.geometries = {{4, 3, 1600}, {4, 1, 784}, {3, 3, 1200}};  // S = 400, 196, 400: slots b·S past 2^31
  far.far_block_per_mille = 300;

  Workload many = base;
  many.name = "many-requests";
  many.geometries = {{4, 0, 16}};  // one row per decode, so 1100 requests fit the budget
  many.config.max_num_seqs = 1100;
  many.config.max_num_batched_tokens = 2048;
  many.initial_requests = 1100;
  many.max_waiting = 2048;
  many.prompt_tokens = LengthTable({{0, 1}, {kLevelScale, 3}});
  many.output_tokens = LengthTable({{0, 6}, {kLevelScale, 40}});
  many.arrivals_per_step_milli = 20000;
  many.preempt_per_mille = 0;
  many.family_per_mille = 0;

  Workload zero = base;
  zero.name = "zero-first";
  zero.zero_length_first_per_mille = 300;

  w.mix = {ratio, split, far, many, zero};
  return w;
}

// One member per group of step-input classes that no other model reaches, in turn, so
// eight consecutive seeds take each once; short scenarios of short requests. No prefix sharing: a
// group skipped for a missing block must not leave a shared block without its row.
Workload make_step_edges() {
  Workload base = make_default();
  base.name = "step-edges";
  base.description =
      "one scenario per step-input class group in turn: strided block tables, padded cache strides, zero-length "
      "and all-padding steps, prefill first, missing blocks, eps and weight specials, HQ 1 to 1024, rd 2 to 512, "
      "max_position 1 to 2^18";
  base.family_per_mille = 0;
  base.prompt_tokens = LengthTable({{0, 1}, {500000, 12}, {kLevelScale, 40}});
  base.output_tokens = LengthTable({{0, 1}, {500000, 4}, {kLevelScale, 12}});
  base.initial_requests = 6;
  base.arrivals_per_step_milli = 1500;
  Workload w = base;
  w.mix_in_turn = true;

  Workload columns = base;  // SPEC 1.1 strides and SPEC 4 padding, with the batch shapes of 1.1 and 2
  columns.name = "column-major";
  columns.geometries = {{4, 3, 16}};  // B = 16: requests span several blocks, so W > 1
  columns.config.block_table_layout = BlockTableLayout::kColumnMajor;
  columns.config.block_table_extra_rows = 3;
  columns.config.slot_mapping_extra = 5;
  columns.config.compressed_row_pad = 8;
  columns.config.compressed_block_pad = 24;
  columns.config.ring_row_pad = 4;
  columns.config.ring_block_pad = 12;
  columns.config.eps = 1e-40f;  // subnormal
  columns.zero_length_inside_per_mille = 400;
  columns.prefill_first_per_mille = 500;
  columns.all_padding_per_mille = 150;

  Workload slice = base;  // with MRoPE, so the ring's padded rows hold position tails
  slice.name = "column-slice";
  slice.geometries = {{4, 3, 16}};
  slice.config.block_table_layout = BlockTableLayout::kColumnSlice;
  slice.config.block_table_extra_rows = 2;
  slice.config.mrope = true;
  slice.config.compressed_row_pad = 1;
  slice.config.compressed_block_pad = 5;
  slice.config.ring_row_pad = 2;
  slice.config.ring_block_pad = 7;
  slice.config.eps = 3.4028234663852886e38f;  // FLT_MAX
  slice.all_padding_per_mille = 250;
  slice.missing_compressed_per_mille = 400;
  slice.missing_ring_per_mille = 400;

  Workload weights = base;  // NaN, -inf and -0 weights, rd = D, eps >= 1
  weights.name = "weights";
  weights.config.special_weights = true;
  weights.config.rotary_dim = weights.config.head_dim;
  weights.config.eps = 2.0f;
  weights.missing_compressed_per_mille = 300;
  weights.missing_ring_per_mille = 400;

  // HQ at SPEC 5's practical bound with rd = 2 and the real model's 2^18 positions: q is [N, HQ, D],
  // so the budget is a few rows; cos_sin is 2^18 x 2 bf16 (1 MiB).
  auto heads = [&](const char* name, int64_t num_heads, int64_t max_position) {
    Workload h = base;
    h.name = name;
    h.config.num_heads = num_heads;
    h.config.rotary_dim = 2;
    h.fixed_max_position = max_position;
    h.config.max_num_batched_tokens = 16;
    h.config.max_num_seqs = 4;
    h.initial_requests = 3;
    h.arrivals_per_step_milli = 500;
    return h;
  };
  // The RoPE table at 1 and 2 rows: requests of one or two positions (no group closes, C = 4).
  auto short_table = [&](const char* name, int64_t max_position) {
    Workload p = base;
    p.name = name;
    p.config.num_heads = 1;
    p.fixed_max_position = max_position;
    p.prompt_tokens = LengthTable({{0, 1}, {kLevelScale, max_position}});
    p.output_tokens = LengthTable({{0, 1}, {kLevelScale, 1}});
    return p;
  };
  Workload wide = base;  // rd = D = 512
  wide.name = "rd-512";
  wide.config.head_dim = 512;
  wide.config.rotary_dim = 512;
  wide.config.num_heads = 1;
  wide.config.max_num_batched_tokens = 64;

  w.mix = {columns,
           slice,
           weights,
           heads("heads-1024", 1024, int64_t{1} << 18),
           heads("heads-1023", 1023, (int64_t{1} << 18) - 1),
           short_table("max-position-1", 1),
           short_table("max-position-2", 2),
           wide};
  return w;
}

Workload make_adversarial() {
  Workload w = make_default();
  w.name = "adversarial";
  w.description =
      "each scenario one of tiny-blocks, ratios, many-drafts, ring-minimum, production-blocks, "
      "preemption-storm, prefix-sharing, mrope-fp8";
  w.mix = {make_tiny_blocks(),       make_ratios(),           make_many_drafts(),    make_ring_minimum(),
           make_production_blocks(), make_preemption_storm(), make_prefix_sharing(), make_mrope_fp8()};
  return w;
}

// The Azure fits: real lengths scaled down (prompts / 16, outputs / 4) and the real budget / 16.
Workload make_azure(const std::string& name, const std::string& description, const TraceFit& fit) {
  Workload w = make_default();
  w.name = name;
  w.description = description;
  w.prompt_tokens = fit.prompt_tokens;
  w.output_tokens = fit.output_tokens;
  w.prompt_length_scale = 16;
  w.output_length_scale = 4;
  w.trace_requests_per_ks = fit.requests_per_ks;
  w.config.max_num_batched_tokens = 512;  // 8192 / 16
  w.config.max_num_seqs = 64;
  w.max_waiting = 128;
  w.family_per_mille = 100;  // not in the trace: a little prefix sharing so hits stay covered
  w.preempt_per_mille = 5;
  w.negative_slot_per_mille = 30;
  return w;
}

struct Entry {
  const char* name;
  std::function<Workload()> make;
};

const std::vector<Entry>& catalog() {
  static const std::vector<Entry> entries = {
      {"default", make_default},
      {"tiny-blocks", make_tiny_blocks},
      {"ratios", make_ratios},
      {"many-drafts", make_many_drafts},
      {"ring-minimum", make_ring_minimum},
      {"production-blocks", make_production_blocks},
      {"preemption-storm", make_preemption_storm},
      {"prefix-sharing", make_prefix_sharing},
      {"mrope-fp8", make_mrope_fp8},
      {"adversarial", make_adversarial},
      {"production", make_production},
      {"layouts", make_layouts},
      {"edges", make_edges},
      {"step-edges", make_step_edges},
      {"azure-code",
       [] {
         return make_azure("azure-code",
                           "Azure LLM inference trace 2023, code: fitted lengths (prompts / 16, outputs / 4) and rate",
                           azure_code_fit());
       }},
      {"azure-conv",
       [] {
         return make_azure(
             "azure-conv",
             "Azure LLM inference trace 2023, conversation: fitted lengths (prompts / 16, outputs / 4) and rate",
             azure_conv_fit());
       }},
  };
  return entries;
}

}  // namespace

std::vector<std::string> workload_names() {
  std::vector<std::string> names;
  for (const Entry& e : catalog()) names.emplace_back(e.name);
  return names;
}

Workload workload_by_name(const std::string& name) {
  std::string choices;
  for (const Entry& e : catalog()) {
    if (name == e.name) return e.make();
    choices += choices.empty() ? "" : ", ";
    choices += e.name;
  }
  throw InputError(
      Error{"workload", -1, "unknown-workload", "unknown workload '" + name + "'; choose one of: " + choices});
}

std::string workload_help() {
  std::string out;
  for (const Entry& e : catalog()) {
    std::string name = e.name;
    name.resize(std::max<size_t>(name.size() + 2, 20), ' ');
    out += name + e.make().description + "\n";
  }
  return out;
}

}  // namespace qsa::traces
