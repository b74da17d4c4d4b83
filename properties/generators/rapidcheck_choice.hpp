#pragma once
// traces::Choice over RapidCheck: every decision is a RapidCheck draw, so the edge-shaped
// generator shrinks (ranges toward their low end, chances toward true). Only inside a generator
// (rc::gen::exec) or a property.

#include <cstdint>

#include <rapidcheck.h>

#include "qsa/traces/choice.hpp"

namespace qsa::testing {

class RapidCheckChoice final : public traces::Choice {
 public:
  // Size-independent, as RngChoice is (inRange alone is scaled down by the size, which would hide
  // the shapes drawn late in a list and the upper bounds from small sizes); shrinks toward lo.
  int64_t range(int64_t lo, int64_t hi) override {
    return lo >= hi ? lo : *rc::gen::resize(100, rc::gen::inRange<int64_t>(lo, hi + 1));
  }
  bool chance(uint64_t numerator, uint64_t denominator) override {
    return *rc::gen::resize(100, rc::gen::inRange<uint64_t>(0, denominator)) < numerator;
  }
  uint64_t seed() override { return *rc::gen::arbitrary<uint64_t>(); }
};

}  // namespace qsa::testing
