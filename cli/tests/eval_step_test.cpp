// `qsacheck eval step` end to end: upstream's streaming example, agreement with the library, and
// the error contract for malformed step requests.

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "qsa/numerics.hpp"
#include "qsa/traces/step_json.hpp"
#include "run_command.hpp"

namespace qsa {
namespace {

using nlohmann::json;
using testing::run_qsacheck;

json load_example() {
  std::ifstream file(std::string(QSA_SOURCE_DIR) + "/docs/examples/eval-step-streaming.json");
  std::stringstream text;
  text << file.rdbuf();
  return json::parse(text.str());
}

json run_ok(const std::string& args, const json& input) {
  const auto r = run_qsacheck(args, input.dump());
  EXPECT_EQ(r.exit_code, 0) << r.out;
  return json::parse(r.out, nullptr, false);
}

void expect_error(const std::string& args, const json& input, const std::string& field, int64_t index,
                  const std::string& rule) {
  const auto r = run_qsacheck(args, input.dump());
  EXPECT_EQ(r.exit_code, 2) << r.out;
  const json j = json::parse(r.out, nullptr, false);
  EXPECT_EQ(j.value("status", ""), "error") << r.out;
  EXPECT_EQ(j.value("field", ""), field) << r.out;
  EXPECT_EQ(j.value("index", -2), index) << r.out;
  EXPECT_EQ(j.value("rule", ""), rule) << r.out;
}

std::vector<int> key_patterns(int request, int position) {
  std::vector<int> k;
  for (int d = 0; d < 32; ++d) k.push_back(bf16_from_float(static_cast<float>(d + 1000 * request + 10 * position)));
  return k;
}

TEST(EvalStepCommand, StreamingExamplePoolsTheRightGroupsAndCommitsTheSuffix) {
  const json out = run_ok("eval step --pooled", load_example());
  ASSERT_EQ(out.value("status", ""), "ok");
  EXPECT_EQ(out["step_status"], "ok");
  ASSERT_EQ(out["pooled"].size(), 3u);
  const int expected[3][3] = {{0, 0, 15}, {0, 1, 55}, {1, 1, 1056}};  // request, group, element 0
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(out["pooled"][i]["request"], expected[i][0]);
    EXPECT_EQ(out["pooled"][i]["group"], expected[i][1]);
    EXPECT_EQ(float_from_bf16(out["pooled"][i]["value"][0].get<Bf16>()), static_cast<float>(expected[i][2]));
  }
  // Ring: block 0 holds positions 7..10 of request 1, block 1 positions 5..8 of request 0 (row p mod 4).
  ASSERT_EQ(out["ring"].size(), 8u);
  for (const json& row : out["ring"]) {
    const int block = row["block"];
    const int r = row["row"];
    const int request = block == 0 ? 1 : 0;
    const int first = block == 0 ? 7 : 5;
    const int position = first + ((r - first % 4) + 4) % 4;
    EXPECT_EQ(row["key"].get<std::vector<int>>(), key_patterns(request, position)) << "block " << block << " row " << r;
  }
  ASSERT_EQ(out["compressed"].size(), 3u);
  EXPECT_EQ(out["compressed"][2]["block"], 3);
  EXPECT_EQ(out["compressed"][2]["row"], 1);
}

TEST(EvalStepCommand, AgreesWithTheLibraryOnEveryOutput) {
  const json input = load_example();
  traces::StepCase c = traces::step_case_from_json(input);
  StepOutput out;
  Error error;
  ASSERT_EQ(reference::step_update(c.input, &c.caches, &out, &error), Status::kOk) << error;
  EXPECT_EQ(run_ok("eval step", input), traces::step_result_to_json(c.input, c.caches, out));
}

TEST(EvalStepCommand, JsonRoundTripKeepsEveryField) {
  const json input = load_example();
  EXPECT_EQ(traces::step_case_to_json(traces::step_case_from_json(input)).dump(),
            traces::step_case_to_json(
                traces::step_case_from_json(traces::step_case_to_json(traces::step_case_from_json(input))))
                .dump());
}

TEST(EvalStepCommand, ShapeAndSchemaErrorsNameTheField) {
  json input = load_example();
  input["keys"][4].erase(0);
  expect_error("eval step", input, "keys", 4, "wrong-shape");
  input = load_example();
  input["store_dtype"] = "fp16";
  expect_error("eval step", input, "store_dtype", -1, "unknown-dtype");
  input = load_example();
  input["num_ring_blocks"] = 1LL << 40;
  expect_error("eval step", input, "num_ring_blocks", -1, "too-large");
  input = load_example();
  input["ring"][0]["row"] = 9;
  expect_error("eval step", input, "ring", 0, "out-of-range");
  input = load_example();
  input["ring"][2]["block"] = 1;  // the same row as entry 0
  input["ring"][2]["row"] = 0;
  expect_error("eval step", input, "ring", 2, "duplicate");
  input = load_example();
  input["rope_theta"] = 10000;
  expect_error("eval step", input, "rope_theta", -1, "unknown-field");
}

TEST(EvalStepCommand, ValidationErrorsFollowSpecOrder) {
  json input = load_example();
  input["head_dim"] = 48;
  expect_error("eval step", input, "head_dim", -1, "out-of-range");
  input = load_example();
  input["positions"][3] = 16;  // max_position = 16
  expect_error("eval step", input, "positions", 3, "out-of-range");
  input = load_example();
  input["ring_block_table"] = json::parse("[[1], [1]]");      // both chunks commit into ring block 1
  expect_error("eval step", input, "slots", 9, "duplicate");  // row 9 = request 1, position 7
}

TEST(EvalStepCommand, PooledIsAReferenceOnlyDebugView) {
  expect_error("eval step --pooled --backend cuda", load_example(), "arguments", -1, "bad-argument");
}

}  // namespace
}  // namespace qsa
