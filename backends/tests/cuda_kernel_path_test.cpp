// The CUDA step-update kernel's path as a pure function (qsa/cuda/kernel_path.hpp), on cases
// worked out by hand from the kernel's rule: min(D / 8, 32) lanes per row, so D / lanes elements
// per lane (8 up to D = 256, 16 at D = 512); the fast RoPE needs rd / 2 = 2^k x that chunk and
// rd a multiple of 8.

#include <set>

#include <gtest/gtest.h>

#include "qsa/backends/cuda_kernel_path.hpp"
#include "qsa/cuda/kernel_path.hpp"
#include "qsa/traces/simulator.hpp"
#include "qsa/traces/workloads.hpp"

namespace qsa::cuda {
namespace {

// Dense caches: rows of D elements (a ring with positions has D + 12, a multiple of 4 as well).
bool fast_dense(int64_t d, int64_t rd, bool fp8) { return fast_step_strides(d, rd, fp8, d, 4 * d, d, 8 * d); }

// Four rows of `stride` elements a block.
CacheLayout rows_of(int64_t stride) {
  CacheLayout layout;
  layout.num_blocks = 1;
  layout.rows = 4;
  layout.width = stride;
  layout.row_stride = stride;
  layout.block_stride = 4 * stride;
  return layout;
}

TEST(CudaKernelPath, TheRopeChunkDecidesFastOrGenericOnDenseCaches) {
  EXPECT_TRUE(fast_dense(32, 16, false));    // rd/2 = 8 = 1 x 8
  EXPECT_FALSE(fast_dense(32, 24, false));   // 12 is no multiple of 8
  EXPECT_TRUE(fast_dense(32, 32, true));     // 16 = 2 x 8
  EXPECT_TRUE(fast_dense(128, 64, false));   // 32 = 4 x 8: the production geometry
  EXPECT_FALSE(fast_dense(128, 48, false));  // 24 = 3 x 8: 3 is no power of two
  EXPECT_FALSE(fast_dense(128, 8, false));   // 4 < 8: no whole chunk
  EXPECT_TRUE(fast_dense(512, 64, false));   // 32 = 2 x 16
  EXPECT_FALSE(fast_dense(512, 48, false));  // 24 is no multiple of 16
}

TEST(CudaKernelPath, PaddedStridesThatBreakVectorRowsAreGeneric) {
  EXPECT_TRUE(fast_step_strides(32, 16, false, 40, 160, 32, 256));   // 80-byte rows: 16-byte multiples
  EXPECT_FALSE(fast_step_strides(32, 16, false, 36, 144, 32, 256));  // 72-byte compressed rows
  EXPECT_TRUE(fast_step_strides(32, 16, true, 40, 160, 32, 256));    // fp8: 40-byte rows, 8-byte multiples
  EXPECT_FALSE(fast_step_strides(32, 16, false, 32, 128, 33, 264));  // 66-byte ring rows
}

TEST(CudaKernelPath, NamesEveryInstantiationOnce) {
  const std::vector<std::string> paths = all_step_kernel_paths();
  EXPECT_EQ(paths.size(), 5u * 3u * 2u);
  EXPECT_EQ(std::set<std::string>(paths.begin(), paths.end()).size(), paths.size());
  EXPECT_EQ(paths.front(), "D32 fast halves bf16");
  EXPECT_EQ(paths[2], "D32 fast bf16");
  EXPECT_EQ(paths.back(), "D512 generic fp8_e4m3");
}

// The Q path's halves layout is the fast layout with rd = D/2, at every D.
TEST(CudaKernelPath, HalvesIsTheFastLayoutWithRdHalfOfD) {
  for (int64_t d : kernel_head_dims()) {
    StepConfig c;
    c.head_dim = d;
    c.rotary_dim = d / 2;
    const CacheLayout dense = rows_of(d);
    EXPECT_TRUE(step_kernel_path(c, dense, dense).halves) << d;
    c.rotary_dim = d == 32 ? 32 : 2 * lane_elements(d);  // rd/2 one lane chunk (D = 32: two): fast, not D/2
    EXPECT_TRUE(step_kernel_path(c, dense, dense).fast) << d;
    EXPECT_FALSE(step_kernel_path(c, dense, dense).halves) << d;
  }
  StepConfig generic;
  generic.head_dim = 128;
  generic.rotary_dim = 64;
  const CacheLayout padded = rows_of(132);  // 264-byte rows: not 16-byte multiples, so generic
  EXPECT_FALSE(step_kernel_path(generic, padded, padded).fast);
  EXPECT_FALSE(step_kernel_path(generic, padded, padded).halves);
}

// The layouts workload takes every path in 30 consecutive seeds (as the default campaign runs it),
// and production takes the model's fast D = 128 path (halves) in both dtypes.
TEST(CudaKernelPath, TheLayoutsWorkloadReachesEveryPathInThirtySeeds) {
  std::set<std::string> reached;
  const traces::Workload layouts = traces::workload_by_name("layouts");
  for (uint64_t seed = 1000003; seed < 1000003 + 30; ++seed)
    reached.insert(backends::cuda_step_kernel_path(traces::Simulator(layouts, seed).config()));
  const std::vector<std::string> paths = backends::cuda_step_kernel_paths();
  EXPECT_EQ(reached, std::set<std::string>(paths.begin(), paths.end()));
  std::set<std::string> production;
  for (uint64_t seed = 1; seed <= 16; ++seed)
    production.insert(
        backends::cuda_step_kernel_path(traces::Simulator(traces::workload_by_name("production"), seed).config()));
  EXPECT_EQ(production, (std::set<std::string>{"D128 fast halves bf16", "D128 fast halves fp8_e4m3"}));
}

// The grid (latency_grid_takes): at most 4096 rows, padding included, on the fast layout with
// D <= 256; the streaming grid otherwise. The production geometry is fast at D = 128.
TEST(CudaKernelPath, TheGridFollowsTheRowCountTheLayoutAndTheHeadDim) {
  traces::ScenarioConfig c = traces::Simulator(traces::workload_by_name("production"), 1).config();
  ASSERT_EQ(backends::cuda_step_kernel_path(c).substr(0, 9), "D128 fast");
  traces::StepRecord step;
  step.chunks.resize(2);
  step.chunks[0].length = 4000;
  step.chunks[1].length = 90;
  step.padding_tokens = 6;  // 4096 rows
  EXPECT_EQ(backends::cuda_step_grid(backends::cuda_grid_choice(c), step), "latency");
  step.padding_tokens = 7;  // 4097
  EXPECT_EQ(backends::cuda_step_grid(backends::cuda_grid_choice(c), step), "streaming");
  step.padding_tokens = 0;
  c.rotary_dim = 48;  // the generic layout
  EXPECT_EQ(backends::cuda_step_grid(backends::cuda_grid_choice(c), step), "streaming");
  c.head_dim = 512;
  c.rotary_dim = 64;  // fast, but no latency grid at D = 512
  ASSERT_EQ(backends::cuda_step_kernel_path(c).substr(0, 9), "D512 fast");
  EXPECT_EQ(backends::cuda_step_grid(backends::cuda_grid_choice(c), step), "streaming");
  c.head_dim = 1024;
  EXPECT_EQ(backends::cuda_step_grid(backends::cuda_grid_choice(c), step), "");
  EXPECT_EQ(backends::cuda_step_grids(), (std::vector<std::string>{"latency", "streaming"}));
}

TEST(CudaKernelPath, AHeadDimTheKernelLacksIsNamed) {
  traces::ScenarioConfig c;
  c.head_dim = 1024;
  EXPECT_EQ(backends::cuda_step_kernel_path(c), "D1024 (not built)");
}

}  // namespace
}  // namespace qsa::cuda
