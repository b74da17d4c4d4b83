#include "scenario_description.hpp"

namespace qsa::cli {

std::string describe(const traces::ScenarioConfig& c) {
  return "C=" + std::to_string(c.compress_ratio) + " B=" + std::to_string(c.block_size) +
         " drafts=" + std::to_string(c.num_speculative_tokens) + " R=" + std::to_string(c.ring_capacity) +
         " D=" + std::to_string(c.head_dim) + " rd=" + std::to_string(c.rotary_dim) +
         " HQ=" + std::to_string(c.num_heads) + (c.mrope ? " MRoPE" : "") + " " + to_string(c.store_dtype);
}

}  // namespace qsa::cli
