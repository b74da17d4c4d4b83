// The GPU smoke test: on a machine with a device it must find it; elsewhere it skips.

#include <gtest/gtest.h>

#include "support/gpu_guard.hpp"

#ifdef QSA_HAVE_CUDA
#include "qsa/cuda/device.hpp"
#endif

namespace qsa {
namespace {

TEST(GpuDevice, ProbeFindsAUsableDevice) {
  QSA_SKIP_WITHOUT_GPU();
#ifdef QSA_HAVE_CUDA
  const std::string description = cuda::device_description();
  EXPECT_FALSE(description.empty());
  std::cout << "device: " << description << "\n";
#endif
}

}  // namespace
}  // namespace qsa
