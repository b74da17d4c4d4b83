// The GPU differential suite for the metadata kernel: the "cuda" backend against the reference on
// the SPEC 8 examples, the fixed corpus (batch generator + RapidCheck samples), fresh RapidCheck
// properties with shrinking, and invalid inputs. Outputs are poisoned before every launch.

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "generators/metadata_generators.hpp"
#include "qsa/cuda/cuda_backend.hpp"
#include "qsa/reference/metadata.hpp"
#include "qsa/spec_examples.hpp"
#include "support/differential.hpp"
#include "support/gpu_guard.hpp"

namespace qsa {
namespace {

TEST(MetadataCudaVsReference, ReproducesEverySpecExample) {
  QSA_SKIP_WITHOUT_GPU();
  cuda::CudaBackend backend;
  for (const MetadataExample& example : spec_metadata_examples()) {
    SCOPED_TRACE(example.name);
    MetadataOutput out = make_poisoned_metadata_output(example.input);
    Error error;
    ASSERT_EQ(backend.build_metadata(example.input, &out, &error), Status::kOk) << error;
    const auto diff = compare_with_example(example, out);
    EXPECT_FALSE(diff.has_value()) << *diff;
    const auto failure = testing::differential_failure(backend, example.input);
    EXPECT_FALSE(failure.has_value()) << *failure;
  }
}

TEST(MetadataCudaVsReference, KeepsRingSurvivalForEveryChunkStart) {
  QSA_SKIP_WITHOUT_GPU();
  cuda::CudaBackend backend;
  auto build = [&](const MetadataInput& in, MetadataOutput* out, Error* e) {
    return backend.build_metadata(in, out, e);
  };
  for (int64_t s = 0; s < 64; ++s) {
    const auto failure = check_ring_survival(s, build);
    EXPECT_FALSE(failure.has_value()) << *failure;
  }
}

// The fixed corpus of `seed` through `backend`: each disagreement (the first five reported).
void expect_corpus_matches(Backend& backend, uint64_t seed) {
  const int size = testing::corpus_size(200);
  const std::vector<testing::CorpusCase> corpus = testing::differential_corpus(seed, size, size);
  int failures = 0;
  for (const testing::CorpusCase& c : corpus) {
    if (const auto failure = testing::differential_failure(backend, c.input)) {
      if (++failures <= 5) ADD_FAILURE() << c.origin << ": " << *failure;
    }
  }
  EXPECT_EQ(failures, 0) << "of " << corpus.size() << " cases";
  std::cout << backend.name() << ", fixed corpus " << seed << ": " << corpus.size() << " cases, " << failures
            << " disagreements\n";
}

TEST(MetadataCudaVsReference, MatchesOnTheFixedDifferentialCorpus) {
  QSA_SKIP_WITHOUT_GPU();
  cuda::CudaBackend backend;
  expect_corpus_matches(backend, /*seed=*/1);
}

// The same corpus with the kernel launched with programmatic dependent launch (each launch may
// start while the previous stream work ends; it waits before its first read).
TEST(MetadataCudaVsReference, MatchesOnTheFixedDifferentialCorpusWithProgrammaticLaunch) {
  QSA_SKIP_WITHOUT_GPU();
  cuda::CudaBackend backend("cuda-pdl", [](const cuda::MetadataDeviceArgs& args, cudaStream_t stream, Error* error) {
    cuda::MetadataLaunchConfig config;
    config.programmatic_launch = true;
    return cuda::launch_metadata(args, stream, error, config);
  });
  expect_corpus_matches(backend, /*seed=*/2);
}

// A plain TEST that skips first, then runs the property (a skipping fixture would not stop an
// RC_GTEST_FIXTURE_PROP). RC_PARAMS="seed=..." replays a failure; the seed is printed on failure.
TEST(MetadataCudaVsReference, MatchesOnGeneratedBatchesOfEveryKind) {
  QSA_SKIP_WITHOUT_GPU();
  cuda::CudaBackend backend;
  for (CacheKind kind : {CacheKind::kCompressed, CacheKind::kRing, CacheKind::kPassthrough}) {
    const bool ok = rc::check(std::string("cuda == reference, ") + to_string(kind) + " kind", [&] {
      const MetadataInput input = *testing::metadata_inputs(kind);
      const auto failure = testing::differential_failure(backend, input);
      RC_ASSERT(!failure.has_value());
    });
    EXPECT_TRUE(ok) << to_string(kind);
  }
}

TEST(MetadataCudaVsReference, RejectsInvalidInputWithTheReferenceError) {
  QSA_SKIP_WITHOUT_GPU();
  cuda::CudaBackend backend;
  MetadataInput base;
  base.cache.kind = CacheKind::kCompressed;
  base.cache.compress_ratio = 4;
  base.cache.storage_block_size = 16;
  base.batch.query_start_loc = {0, 3, 5};
  base.batch.seq_lens = {7, 9};
  base.batch.num_actual_tokens = 6;
  base.batch.common_slot_mapping = {1, 2, 3, 4, 5, -1};
  base.block_table = BlockTable::from_rows({{1}, {2}});
  ASSERT_FALSE(testing::differential_failure(backend, base).has_value());

  std::vector<std::pair<std::string, MetadataInput>> broken;
  auto add = [&](const std::string& what, auto mutate) {
    MetadataInput in = base;
    mutate(in);
    broken.emplace_back(what, in);
  };
  add("compress ratio 1", [](MetadataInput& in) { in.cache.compress_ratio = 1; });
  add("decreasing qsl", [](MetadataInput& in) { in.batch.query_start_loc = {0, 3, 2}; });
  add("N below M", [](MetadataInput& in) { in.batch.num_actual_tokens = 4; });
  add("seq_len shorter than the query", [](MetadataInput& in) { in.batch.seq_lens = {2, 9}; });
  add("padding row with a slot", [](MetadataInput& in) { in.batch.common_slot_mapping[5] = 8; });
  add("too few block-table rows", [](MetadataInput& in) { in.block_table = BlockTable::from_rows({{1}}); });
  add("seq_lens of the wrong length", [](MetadataInput& in) { in.batch.seq_lens = {7}; });
  for (const auto& [what, input] : broken) {
    MetadataOutput scratch;
    Error error;
    ASSERT_NE(reference::build_metadata(input, &scratch, &error), Status::kOk) << what;
    const auto failure = testing::differential_failure(backend, input);
    EXPECT_FALSE(failure.has_value()) << what << ": " << *failure;
  }
}

}  // namespace
}  // namespace qsa
