// `qsacheck eval` end to end: the SPEC 8 examples through the command line, and the error
// contract (JSON error naming field, index and rule; exit code 2; never a crash).

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "qsa/spec_examples.hpp"
#include "qsa/traces/json_codec.hpp"
#include "run_command.hpp"

namespace qsa {
namespace {

using testing::run_qsacheck;

nlohmann::json parse(const std::string& out) {
  auto j = nlohmann::json::parse(out, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(j.is_discarded()) << "stdout is not one JSON document: " << out;
  return j;
}

void expect_error(const std::string& args, const std::string& input, const std::string& field, int64_t index,
                  const std::string& rule) {
  const auto r = run_qsacheck(args, input);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out;
  const auto j = parse(r.out);
  EXPECT_EQ(j.value("status", ""), "error") << r.out;
  EXPECT_EQ(j.value("field", ""), field) << r.out;
  EXPECT_EQ(j.value("index", -2), index) << r.out;
  EXPECT_EQ(j.value("rule", ""), rule) << r.out;
}

TEST(EvalMetadataCommand, ReproducesEverySpecExample) {
  for (const MetadataExample& example : spec_metadata_examples()) {
    SCOPED_TRACE(example.name);
    const auto r = run_qsacheck("eval metadata", traces::metadata_input_to_json(example.input).dump());
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const auto j = parse(r.out);
    ASSERT_EQ(j.value("status", ""), "ok");
    MetadataOutput out;
    out.token_to_req = j["token_to_req"].get<std::vector<int32_t>>();
    out.logical_positions = j["logical_positions"].get<std::vector<int64_t>>();
    out.visible_blocks = j["visible_blocks"].get<std::vector<int32_t>>();
    out.slot_mapping = j["slot_mapping"].get<std::vector<int64_t>>();
    for (const auto& pair : j["k_work_metadata"]) {
      out.k_work_metadata.push_back(pair[0].get<int32_t>());
      out.k_work_metadata.push_back(pair[1].get<int32_t>());
    }
    out.split.num_decodes = j["num_decodes"].get<int64_t>();
    out.split.decode_query_len = j["decode_query_len"].get<int64_t>();
    const auto diff = compare_with_example(example, out);
    EXPECT_FALSE(diff.has_value()) << *diff;
  }
}

TEST(EvalMetadataCommand, PrintsEveryOutputField) {
  const auto r =
      run_qsacheck("eval metadata",
                   R"({"kind":"compressed","compress_ratio":4,"storage_block_size":16,"num_actual_tokens":8,)"
                   R"("query_start_loc":[0,3,3,8],"seq_lens":[7,0,12],"common_slot_mapping":[-1,-1,-1,-1,-1,-1,-1,-1],)"
                   R"("block_table":[[0],[0],[0]]})");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto j = parse(r.out);
  for (const char* field :
       {"token_to_req", "logical_positions", "visible_blocks", "slot_mapping", "k_work_metadata", "num_decodes",
        "num_decode_tokens", "num_prefills", "num_prefill_tokens", "max_query_len", "decode_query_len", "max_seq_len"})
    EXPECT_TRUE(j.contains(field)) << field;
  EXPECT_EQ(j["k_work_metadata"], nlohmann::json::parse("[[0,0],[2,0],[2,1],[-1,-1]]"));
  EXPECT_EQ(j["max_seq_len"], 12);
}

TEST(EvalMetadataCommand, ValidationErrorNamesFieldIndexAndRule) {
  expect_error(
      "eval metadata",
      R"({"kind":"ring","ring_capacity":4,"num_actual_tokens":3,"query_start_loc":[0,3,2],"seq_lens":[3,3],"block_table":[[0],[1]]})",
      "query_start_loc", 2, "decreasing");
  expect_error(
      "eval metadata",
      R"({"kind":"passthrough","num_actual_tokens":3,"query_start_loc":[0,2],"seq_lens":[2],"common_slot_mapping":[1,2,3],"block_table":[[]]})",
      "common_slot_mapping", 2, "padding-not-negative");
}

TEST(EvalMetadataCommand, MalformedJsonIsAnErrorNotACrash) {
  expect_error("eval metadata", R"({"kind": "ring", )", "input", 17, "malformed-json");
  expect_error("eval metadata", "", "input", 0, "malformed-json");
  expect_error("eval metadata", "[1, 2]", "input", -1, "wrong-type");
  expect_error("eval metadata", R"({"kind": "ring", "ring_capacity": 1e999})", "input", -1,
               "malformed-json");  // beyond double
}

TEST(EvalMetadataCommand, SchemaErrorsNameTheField) {
  expect_error("eval metadata", R"({"kind":"cube","num_actual_tokens":0,"query_start_loc":[0],"seq_lens":[]})", "kind",
               -1, "unknown-kind");
  expect_error("eval metadata", R"({"kind":"ring","ring_capacity":4,"query_start_loc":[0,1],"seq_lens":[1]})",
               "num_actual_tokens", -1, "missing");
  expect_error("eval metadata",
               R"({"kind":"ring","ring_capacity":4,"num_actual_tokens":1,"query_start_loc":[0,1],"seq_lens":[1.5]})",
               "seq_lens", 0, "wrong-type");
  expect_error(
      "eval metadata",
      R"({"kind":"ring","ring_capacity":4,"num_actual_tokens":1,"query_start_loc":[0,1],"seq_lens":[1],"block_table":[[0],[1,2]]})",
      "block_table", 1, "wrong-shape");
  expect_error(
      "eval metadata",
      R"({"kind":"ring","ring_capacity":4,"num_actual_tokens":1,"query_start_loc":[0,1],"seq_lens":[1],"block_table":[[4294967296]]})",
      "block_table", 0, "out-of-range");
  expect_error(
      "eval metadata",
      R"({"kind":"ring","ring_capacity":4,"num_actual_tokens":1,"query_start_loc":[0,1],"seq_lens":[1],"block_tabel":[[0]]})",
      "block_tabel", -1, "unknown-field");
}

TEST(EvalMetadataCommand, UnknownBackendIsAUsageError) {
  expect_error("eval metadata --backend nosuch", "{}", "backend", -1, "unknown-backend");
}

TEST(EvalMetadataCommand, MissingInputFileIsAnError) {
  expect_error("eval metadata --input /nonexistent/file.json", "", "input", -1, "unreadable");
}

TEST(EvalRingCapacityCommand, PrintsTheCapacity) {
  const auto r = run_qsacheck("eval ring-capacity --compress-ratio 4 --num-speculative-tokens 3 --block-size 48");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(parse(r.out), nlohmann::json::parse(R"({"status":"ok","capacity":8})"));
  const auto w =
      run_qsacheck("eval ring-capacity --compress-ratio 4 --num-speculative-tokens 5 --block-size 40 --rule widen");
  EXPECT_EQ(parse(w.out)["capacity"], 20);
}

TEST(EvalRingCapacityCommand, ErrorsAreJson) {
  expect_error("eval ring-capacity --compress-ratio 4 --num-speculative-tokens 5 --block-size 40", "", "block_size", -1,
               "not-divisible");
  expect_error("eval ring-capacity --compress-ratio 4 --block-size 40", "", "arguments", -1, "bad-argument");
  expect_error("eval ring-capacity --compress-ratio 4 --num-speculative-tokens 1 --block-size 16 --rule odd", "",
               "arguments", -1, "bad-argument");
  expect_error("eval ring-capacity --compress-ratio four --num-speculative-tokens 1 --block-size 16", "",
               "--compress-ratio", -1, "not-an-integer");
}

TEST(QsacheckCommand, VersionNamesSpecCommitAndCuda) {
  const auto r = run_qsacheck("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("SPEC version 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("commit "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("CUDA support"), std::string::npos) << r.out;
}

TEST(QsacheckCommand, UnknownSubcommandIsAUsageErrorThatNamesTheWord) {
  expect_error("frobnicate", "", "command", 1, "unknown-command");
}

}  // namespace
}  // namespace qsa
