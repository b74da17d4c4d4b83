#pragma once
// traces::Choice over libFuzzer's FuzzedDataProvider: every decision consumes input bytes, so the
// fuzzer's mutations move between the edge-shaped generator's shapes. Header-only (clang builds
// the fuzzers; the replay executables build it with g++ against the same header).

#include <cstdint>

#include <fuzzer/FuzzedDataProvider.h>

#include "qsa/traces/choice.hpp"

namespace qsa::fuzz {

class FuzzedDataChoice final : public traces::Choice {
 public:
  explicit FuzzedDataChoice(FuzzedDataProvider& provider) : provider_(provider) {}
  int64_t range(int64_t lo, int64_t hi) override {
    return lo >= hi ? lo : provider_.ConsumeIntegralInRange<int64_t>(lo, hi);
  }
  bool chance(uint64_t numerator, uint64_t denominator) override {
    return denominator > 0 && provider_.ConsumeIntegralInRange<uint64_t>(0, denominator - 1) < numerator;
  }
  uint64_t seed() override { return provider_.ConsumeIntegral<uint64_t>(); }

 private:
  FuzzedDataProvider& provider_;
};

}  // namespace qsa::fuzz
