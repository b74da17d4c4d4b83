// The RapidCheck generators of properties/generators produce valid inputs, cover the edge shapes
// they promise, and the reference keeps the SPEC 7.4 invariants on them. Runs without a GPU.

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "generators/metadata_generators.hpp"
#include "qsa/invariants.hpp"
#include "qsa/reference/metadata.hpp"
#include "qsa/validate.hpp"

namespace qsa {
namespace {

RC_GTEST_PROP(MetadataGenerators, EveryDrawIsValidAndTheReferenceKeepsTheInvariants, ()) {
  const MetadataInput input = *testing::metadata_inputs();
  Error error;
  RC_ASSERT(validate(input, &error) == Status::kOk);
  MetadataOutput out = make_poisoned_metadata_output(input);
  RC_ASSERT(reference::build_metadata(input, &out, &error) == Status::kOk);
  const auto violation = check_metadata_invariants(input, out);
  RC_ASSERT(!violation.has_value());

  const Batch& b = input.batch;
  const int64_t m = b.num_mapped_tokens();
  bool zero_inside = false;
  for (int64_t j = 0; j + 1 < b.num_requests(); ++j)
    if (b.query_len(j) == 0 && b.query_start_loc[j] < m) zero_inside = true;
  RC_TAG(std::string(to_string(input.cache.kind)));
  RC_CLASSIFY(b.num_requests() == 1, "one request");
  RC_CLASSIFY(m == 1, "one token");
  RC_CLASSIFY(m == 0, "all padding");
  RC_CLASSIFY(zero_inside, "zero-length request inside");
  RC_CLASSIFY(b.num_requests() > 1 && b.query_len(b.num_requests() - 1) == 0 && m > 0, "zero-length tail");
  RC_CLASSIFY(b.num_actual_tokens >= 2 * m + 1, "N much larger than M");
  RC_CLASSIFY(input.block_table.col_stride != 1, "column-strided table");
  RC_CLASSIFY(input.block_table.row_stride > input.block_table.cols, "row-sliced table");
}

TEST(MetadataGenerators, SamplesAreDeterministicAndCoverTheEdgeShapes) {
  int all_padding = 0;
  int one_request = 0;
  int strided = 0;
  int much_padding = 0;
  for (int i = 0; i < 300; ++i) {
    const MetadataInput a = testing::sample_metadata_input(5, i);
    const MetadataInput b = testing::sample_metadata_input(5, i);
    ASSERT_EQ(a.batch.query_start_loc, b.batch.query_start_loc) << i;
    ASSERT_EQ(a.block_table.storage, b.block_table.storage) << i;
    Error error;
    ASSERT_EQ(validate(a, &error), Status::kOk) << error;
    const int64_t m = a.batch.num_mapped_tokens();
    all_padding += m == 0;
    one_request += a.batch.num_requests() == 1;
    strided += a.block_table.col_stride != 1;
    much_padding += a.batch.num_actual_tokens > 2 * m;
  }
  EXPECT_GT(all_padding, 0);
  EXPECT_GT(one_request, 0);
  EXPECT_GT(strided, 0);
  EXPECT_GT(much_padding, 0);
}

}  // namespace
}  // namespace qsa
