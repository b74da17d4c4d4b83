#pragma once
// What every fuzz target shares: how a finding is reported (printed, then a trap, so libFuzzer
// records the input and the replay executables fail), the backends a target compares with the
// reference (differential mode), and an edge-biased decoder for FuzzedDataProvider.

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include <fuzzer/FuzzedDataProvider.h>

#include "qsa/backend_interface.hpp"
#include "qsa/engine/float_comparator.hpp"

namespace qsa::fuzz {

/// Prints "FINDING <target>: <check>: <detail>" on stderr and traps (never returns, never throws).
/// `detail` names the step, the check and the element where it can.
[[noreturn]] void finding(const char* target, const std::string& check, const std::string& detail);

/// Lines of a text input, counting a last line without its newline (the readers' 1-based line
/// numbers stay at or below this, plus one for "the line after the header").
int64_t line_count(const std::string& text);

/// Runs one input's checks: an exception escaping them is a finding (check "exception").
void run_input(const char* target, const std::function<void()>& checks);

/// The reference backend (created once).
Backend& reference_backend();

/// The backends compared with the reference bit for bit, created once per process:
/// - QSA_FUZZ_BACKEND unset: every backend registered by backends::register_builtin_backends()
///   other than "reference" whose probe() is kOk (the CUDA backend on a GPU build with a device);
/// - QSA_FUZZ_BACKEND=name[,name...]: exactly those, plugin:PATH.so[#VARIANT] included (an
///   unknown or unavailable one is a usage error: the process prints why and exits 2);
/// - QSA_FUZZ_BACKEND=none: none (the reference against the invariants and the oracle only).
/// The planted `bug:` backends are not linked into the fuzzers; the replay executables of a test
/// build register them hidden, so only QSA_FUZZ_BACKEND=bug:... selects one.
const std::vector<std::unique_ptr<Backend>>& differential_backends();

/// The float comparison of the scenario target's differential, from QSA_FUZZ_FLOAT_TOLERANCE
/// ("exact" when unset, or "row-ulp:N": SPEC 6's tolerance mode); an invalid value is a usage
/// error (the process prints the rule and exits 2). Read once per process.
traces::FloatTolerance fuzz_float_tolerance();

/// Prints, once per process, which backends the target compares (the replay tools and libFuzzer
/// both show it at start-up).
void announce_backends(const char* target);

/// FuzzedDataProvider with helpers that favour the edge values a property generator would pick.
class Decoder {
 public:
  Decoder(const uint8_t* data, size_t size) : fdp_(data, size) {}

  bool empty() { return fdp_.remaining_bytes() == 0; }
  bool flag() { return fdp_.ConsumeBool(); }
  /// True with probability about n / 256.
  bool one_in_256(int n) { return fdp_.ConsumeIntegral<uint8_t>() < n; }
  int64_t range(int64_t lo, int64_t hi) { return fdp_.ConsumeIntegralInRange<int64_t>(lo, hi); }
  /// One of `values`.
  int64_t pick(std::initializer_list<int64_t> values) {
    return *(values.begin() + fdp_.ConsumeIntegralInRange<size_t>(0, values.size() - 1));
  }
  /// Usually one of `edges`, sometimes anything in [lo, hi].
  int64_t edgy(int64_t lo, int64_t hi, std::initializer_list<int64_t> edges);
  /// Any 64-bit value, biased toward the limits of SPEC 1.3 and the integer types.
  int64_t wild();
  FuzzedDataProvider& provider() { return fdp_; }

 private:
  FuzzedDataProvider fdp_;
};

}  // namespace qsa::fuzz
