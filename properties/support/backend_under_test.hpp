#pragma once
// Which backend the property suite checks, and how hard. The suite runs against $QSA_BACKEND
// (default "reference"): every backend of the registry, the planted bugs included, so
// `QSA_BACKEND=bug:ring-index-off-by-one property_tests` runs every property against a planted bug.
// $QSA_TEST_LEVEL (quick, full, soak; set by CTest from the CMake option) scales the effort.

#include <memory>
#include <stdexcept>
#include <string>

#include "qsa/backend_interface.hpp"
#include "qsa/engine/float_comparator.hpp"

namespace qsa::testing {

/// The name in $QSA_BACKEND, or "reference".
std::string backend_under_test_name();

/// The float comparison in $QSA_FLOAT_TOLERANCE ("exact" when unset; "row-ulp:N": SPEC 6's
/// tolerance mode). An invalid value throws std::invalid_argument naming the variable and the rule.
traces::FloatTolerance float_tolerance_under_test();

/// The backend to check, or nullptr with the reason when it cannot run here (unknown name, no GPU).
std::unique_ptr<Backend> backend_under_test(std::string* reason);

enum class TestLevel { kQuick, kFull, kSoak };
TestLevel test_level();
/// Scales a quick-level count: x1 quick, x10 full, x100 soak.
int64_t scaled(int64_t quick_count);

/// The command that reruns the current GoogleTest test with the same backend.
std::string rerun_command();

}  // namespace qsa::testing

/// Skips the test when the backend under test cannot run here (a GPU backend without a device);
/// with QSA_REQUIRE_GPU=1 that is a failure instead.
#define QSA_BACKEND_UNDER_TEST(var)                                                               \
  std::string qsa_backend_reason_;                                                                \
  std::unique_ptr<::qsa::Backend> var = ::qsa::testing::backend_under_test(&qsa_backend_reason_); \
  if (!var) {                                                                                     \
    if (::qsa::testing::gpu_required()) FAIL() << qsa_backend_reason_;                            \
    GTEST_SKIP() << qsa_backend_reason_;                                                          \
  }
