// Per-step cost of the scenario runner against what the caches hold (docs/campaign-time.md:
// cost that follows the work): one request prefills a prompt of --prompt tokens, then decodes --decodes steps of
// 1 + 3 drafts (2 accepted) through the reference with every check; the decode steps are timed.
// Prints the median decode step without the periodic full comparisons (steps after which the
// runner compares both whole caches: RunOptions::full_compare_every), and those steps' extra cost
// amortized over the interval. Oracle sweeps are off (sweep_every 0): they are not this figure.
//   scenario_step_bench --prompt 2097152 --decodes 256
// Not a test: docs/campaign-time.md records its figures.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "qsa/reference/reference_backend.hpp"
#include "qsa/engine/step_loop.hpp"
#include "qsa/engine/scenario_runner.hpp"

namespace {

using namespace qsa;

int64_t arg(int argc, char** argv, const char* name, int64_t fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return std::atoll(argv[i + 1]);
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t prompt = arg(argc, argv, "--prompt", 2048);
  const int64_t decodes = arg(argc, argv, "--decodes", 256);
  const int64_t chunk_tokens = arg(argc, argv, "--chunk", 8192);
  const int64_t every = arg(argc, argv, "--full-compare-every", 64);

  traces::ScenarioConfig c;
  c.workload = "scenario-step-bench";
  c.compress_ratio = 4;
  c.block_size = 784;  // a production block size: the block table stays short
  c.num_speculative_tokens = 3;
  c.ring_capacity = 8;
  c.head_dim = 128;
  c.rotary_dim = 64;
  c.num_heads = 4;
  const int64_t length = prompt + 4 * decodes + 8;
  c.max_position = length + 8;
  c.num_compressed_blocks = (length + c.block_size - 1) / c.block_size + 1;
  c.num_ring_blocks = 2;
  c.max_num_batched_tokens = chunk_tokens;
  c.max_num_seqs = 1;

  std::vector<int32_t> all_blocks;
  for (int64_t b = 0; b + 1 < c.num_compressed_blocks; ++b) all_blocks.push_back(static_cast<int32_t>(b + 1));
  const auto step_of = [&](int64_t start, int64_t rows, int64_t accepted) {
    traces::ChunkRecord ch;
    ch.request = 0;
    ch.prompt_len = prompt;
    ch.start = start;
    ch.length = rows;
    ch.accepted = accepted;
    const int64_t blocks = (start + rows + c.block_size - 1) / c.block_size;
    ch.blocks.assign(all_blocks.begin(), all_blocks.begin() + blocks);
    ch.ring_block = 1;
    traces::StepRecord s;
    s.reorder_batch_threshold = 4;
    s.chunks = {ch};
    return s;
  };

  reference::ReferenceBackend backend;
  engine::RunOptions options;
  options.sweep_every = 0;
  options.full_compare_every = every;
  engine::ScenarioRunner runner(c, backend, options);
  const auto fail = [](const engine::RunFailure& f) {
    std::fprintf(stderr, "FAIL %s\n", engine::to_string(f).c_str());
    return 1;
  };
  // The prompt in chunks, then `decodes` decode steps of 4 rows (2 accepted), each decode timed
  // from its record's making to the end of its checks.
  const auto t0 = std::chrono::steady_clock::now();
  int64_t at = 0;
  int64_t decoded = 0;
  double prefill_s = 0;
  traces::StepRecord record;
  std::chrono::steady_clock::time_point s0;
  const engine::StepSource next = [&]() -> const traces::StepRecord* {
    if (at < prompt) {
      const int64_t rows = std::min(chunk_tokens, prompt - at);
      record = step_of(at, rows, rows);
      at += rows;
    } else {
      if (decoded == 0) prefill_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (decoded++ == decodes) return nullptr;
      record = step_of(at, 4, 2);
      at += 2;
    }
    s0 = std::chrono::steady_clock::now();
    return &record;
  };
  std::vector<double> plain, full;
  engine::StepObserver observer;
  observer.after_step = [&](int64_t index, const traces::StepRecord& step, const engine::ScenarioRunner&, bool) {
    if (step.chunks[0].length == step.chunks[0].accepted) return;  // a prefill chunk
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s0).count();
    (every > 0 && (index + 1) % every == 0 ? full : plain).push_back(ms);
  };
  if (auto f = engine::run_steps(runner, next, observer).failure) return fail(*f);
  std::sort(plain.begin(), plain.end());
  const double median = plain.empty() ? 0 : plain[plain.size() / 2];
  double full_mean = 0;
  for (double ms : full) full_mean += ms / static_cast<double>(full.size());
  const double cache_mb =
      static_cast<double>(runner.caches().compressed.bytes.size() + runner.caches().ring.bytes.size()) / 1048576.0;
  std::printf("prompt %lld tokens, caches %.1f MB, prefill %.1f s (%lld steps)\n", static_cast<long long>(prompt),
              cache_mb, prefill_s, static_cast<long long>(runner.steps_run() - decodes));
  std::printf("decode step median %.3f ms over %zu steps (without full comparisons)\n", median, plain.size());
  if (!full.empty())
    std::printf("full-comparison steps: %zu, mean %.3f ms; amortized over %lld steps: %.3f ms per step\n", full.size(),
                full_mean, static_cast<long long>(every), (full_mean - median) / static_cast<double>(every));
  return 0;
}
