#include "qsa/declared_limits.hpp"

#include <cstring>

namespace qsa {

std::vector<std::string> Deviations::names() const {
  std::vector<std::string> out;
  if (negative_slots_pass_through) out.emplace_back(kNegativeSlotsPassThrough);
  return out;
}

void apply_deviations(const Deviations& deviations, MetadataOutput* output) {
  if (!deviations.negative_slots_pass_through) return;
  // An element never written keeps its poison (itself negative), so it still shows as unwritten.
  int64_t poison;
  std::memset(&poison, kPoisonByte, sizeof poison);
  for (int64_t& slot : output->slot_mapping)
    if (slot < 0 && slot != poison) slot = -1;
}

}  // namespace qsa
