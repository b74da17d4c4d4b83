// dynamic_bytes_capping_blocks (optimized/src/kernels/blocks_per_sm_cap.hpp): the bytes it asks for
// leave room for exactly the capped number of blocks per SM, judged by the division the hardware
// makes (whole blocks of dynamic + reserved + static bytes in the SM's shared memory).

#include <gtest/gtest.h>

#include <cstddef>

#include "kernels/blocks_per_sm_cap.hpp"

namespace qsa {
namespace {

using cuda::detail::dynamic_bytes_capping_blocks;

size_t blocks_that_fit(size_t shared_per_sm, size_t per_block) { return shared_per_sm / per_block; }

TEST(BlocksPerSmCap, LeavesRoomForExactlyTheCappedBlocks) {
  // Shared memory per SM of an H200 (228 KiB) and an A100 (164 KiB), and a 96 KiB one.
  for (const size_t shared_per_sm : {size_t{233472}, size_t{167936}, size_t{98304}}) {
    for (const size_t static_bytes : {size_t{0}, size_t{512}, size_t{1024}}) {
      for (int blocks = 1; blocks <= 32; ++blocks) {
        const size_t reserved = 1024;
        const size_t dynamic = dynamic_bytes_capping_blocks(shared_per_sm, reserved, static_bytes, blocks);
        ASSERT_GT(dynamic, 0u) << shared_per_sm << " " << blocks;
        EXPECT_EQ(blocks_that_fit(shared_per_sm, dynamic + reserved + static_bytes), static_cast<size_t>(blocks))
            << "shared per SM " << shared_per_sm << ", static " << static_bytes << ", cap " << blocks;
      }
    }
  }
}

TEST(BlocksPerSmCap, AsksForNothingWithoutACapOrWhenTheBlockAlreadyNeedsItsShare) {
  EXPECT_EQ(dynamic_bytes_capping_blocks(233472, 1024, 512, 0), 0u);
  // 4 blocks of 233472 / 4 = 58368 bytes; a block that uses 60000 already fits fewer.
  EXPECT_EQ(dynamic_bytes_capping_blocks(233472, 1024, 60000, 4), 0u);
  EXPECT_EQ(dynamic_bytes_capping_blocks(233472, 1024, 57344, 4), 0u);
  EXPECT_EQ(dynamic_bytes_capping_blocks(233472, 1024, 57343, 4), 1u);
}

}  // namespace
}  // namespace qsa
