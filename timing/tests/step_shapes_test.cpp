// The shape sets `qsacheck bench --shapes` accepts: the named sets, FAMILY:N:NR[:DTYPE] lists, every
// rule a bad entry breaks (field "shapes", the entry's index), and that every accepted shape makes a
// valid step with exactly the tokens and requests it names.

#include <gtest/gtest.h>

#include "qsa/timing/step_shapes.hpp"
#include "qsa/validate.hpp"

namespace qsa::timing {
namespace {

std::vector<StepShape> parsed(const std::string& text) {
  std::vector<StepShape> shapes;
  Error error;
  EXPECT_EQ(parse_step_shapes(text, &shapes, &error), Status::kOk) << text << ": " << to_string(error);
  return shapes;
}

Error rejected(const std::string& text) {
  std::vector<StepShape> shapes;
  Error error;
  EXPECT_EQ(parse_step_shapes(text, &shapes, &error), Status::kInvalidInput) << text;
  EXPECT_EQ(error.field, "shapes");
  return error;
}

TEST(StepShapes, NamedSets) {
  EXPECT_EQ(parsed("standard").size(), step_shapes().size());
  const std::vector<StepShape> quick = parsed("quick");
  ASSERT_EQ(quick.size(), 2u);
  EXPECT_EQ(quick[0].name, "decode");
  EXPECT_EQ(quick[1].name, "prefill");
}

TEST(StepShapes, ListOfFamilyTokensRequestsDtype) {
  const std::vector<StepShape> shapes = parsed("decode:4096:1024:fp8,mixed:8192:1024,prefill:12288:3:bf16");
  ASSERT_EQ(shapes.size(), 3u);
  EXPECT_EQ(shapes[0].dtype, StoreDtype::kFp8E4m3);
  EXPECT_EQ(shapes[1].tokens, 8192);
  EXPECT_EQ(shapes[1].dtype, StoreDtype::kBf16);
  EXPECT_EQ(shapes[2].requests, 3);
}

TEST(StepShapes, EachBadEntryNamesItsIndexAndRule) {
  const struct {
    const char* text;
    int64_t index;
    const char* rule;
  } cases[] = {
      {"sideways:4096:1024", 0, "unknown-family"},
      {"decode:4096", 0, "unknown-shape"},
      {"decode:4096:1024,decode:x:1", 1, "not-a-count"},
      {"decode:4096:0", 0, "not-a-count"},
      {"decode:4096:1000", 0, "decode-rows"},
      {"prefill:100:3", 0, "prefill-rows"},
      {"prefill:16382:1", 0, "prefill-rows"},
      {"mixed:8190:1024", 0, "mixed-rows"},
      {"mixed:16:4", 0, "mixed-rows"},
      {"prefill:8192:2:fp16", 0, "unknown-dtype"},
      {"prefill:1048576:128", 0, "too-large"},
      {"", 0, "unknown-shape"},
  };
  for (const auto& c : cases) {
    const Error error = rejected(c.text);
    EXPECT_EQ(error.index, c.index) << c.text;
    EXPECT_EQ(error.rule, c.rule) << c.text;
  }
}

TEST(StepShapes, EveryAcceptedShapeMakesAValidStepOfItsSize) {
  for (const StepShape& shape : parsed("decode:64:16,mixed:36:8,prefill:16380:2:fp8,prefill:8190:1")) {
    const StepCase c = make_step_case(shape, 3);
    Error error;
    EXPECT_EQ(validate_step(c.input, c.caches, &error), Status::kOk) << shape.name << ": " << to_string(error);
    EXPECT_EQ(c.input.batch.num_actual_tokens, shape.tokens) << shape.name;
    EXPECT_EQ(c.input.batch.num_requests(), shape.requests) << shape.name;
    EXPECT_EQ(c.input.config.store_dtype, shape.dtype) << shape.name;
  }
}

}  // namespace
}  // namespace qsa::timing
