// The metadata at the far ends of SPEC 1.3 (traces/extreme_batches.hpp: N = 2^24, NR = 2^20,
// int64 slot limits, a chunk start of 2^31 - 1), for the backend under test. Random draws cannot
// afford these sizes, so the batches are fixed; this test runs last in the suite (its file is linked
// last) because each large batch costs about a second and 400 MiB.

#include <gtest/gtest.h>

#include <cstdio>

#include "qsa/engine/check_engine.hpp"
#include "qsa/traces/extreme_batches.hpp"
#include "qsa/traces/large_buffer_reuse.hpp"
#include "support/backend_under_test.hpp"
#include "support/gpu_guard.hpp"

namespace qsa {
namespace {

TEST(MetadataExtremes, EveryExtremeBatchEqualsTheReference) {
  QSA_BACKEND_UNDER_TEST(backend);
  const traces::LargeBufferReuse reuse;  // about 1.3 GiB a batch, allocated and freed again
  int judged = 0;
  for (int64_t k = 0; k < traces::kNumExtremeBatches; ++k) {
    const traces::ExtremeBatch extreme = traces::extreme_metadata_batch(k);
    const engine::MetadataRun run = engine::run_metadata(*backend, extreme.input);
    if (is_declined(run.status, run.error)) {  // outside the backend's declared capabilities
      std::printf("extreme batch %lld (%s): declined by %s: %s\n", static_cast<long long>(k), extreme.name,
                  backend->name().c_str(), run.error.message.c_str());
      continue;
    }
    ++judged;
    const engine::MetadataRun expected = engine::reference_metadata(extreme.input);
    const auto finding = engine::judge_metadata(extreme.input, run, engine::MetadataChecks{true, &expected});
    EXPECT_FALSE(finding.has_value()) << "extreme batch " << k << " (" << extreme.name
                                      << "): " << (finding ? finding->to_string() : "");
  }
  EXPECT_GT(judged, 0) << backend->name() << " declined every extreme batch";
}

}  // namespace
}  // namespace qsa
