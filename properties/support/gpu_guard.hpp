#pragma once
// GPU tests are always registered. Without a usable device they skip (CTest shows "Skipped");
// with QSA_REQUIRE_GPU=1 in the environment (set on the GPU machine) a skip becomes a failure.

#include <string>

#include <gtest/gtest.h>

namespace qsa::testing {

/// True when the CUDA backend is built and device 0 initialises; otherwise *reason says why.
bool gpu_available(std::string* reason);

/// True when QSA_REQUIRE_GPU=1: a missing GPU must fail the test, not skip it.
bool gpu_required();

}  // namespace qsa::testing

#define QSA_SKIP_WITHOUT_GPU()                                                                   \
  do {                                                                                           \
    std::string qsa_gpu_reason_;                                                                 \
    if (!::qsa::testing::gpu_available(&qsa_gpu_reason_)) {                                      \
      if (::qsa::testing::gpu_required()) FAIL() << "QSA_REQUIRE_GPU=1 but " << qsa_gpu_reason_; \
      GTEST_SKIP() << qsa_gpu_reason_;                                                           \
    }                                                                                            \
  } while (0)
