// The pieces under the simulator: length tables, the Azure fit, the CSV reader, the block pool
// and the CUDA-graph capture sizes.

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "qsa/traces/azure_fit.hpp"
#include "qsa/traces/block_pool.hpp"
#include "qsa/traces/cuda_graph_padding.hpp"
#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/simulator.hpp"
#include "qsa/traces/workloads.hpp"

namespace qsa::traces {
namespace {

TEST(LengthTable, QuantileInterpolatesLinearlyAndRoundsDown) {
  const LengthTable t({{0, 10}, {kLevelScale, 20}});
  EXPECT_EQ(t.quantile(500000), 15);
  EXPECT_EQ(t.quantile(0), 10);
  EXPECT_EQ(t.quantile(999999), 19);
  EXPECT_EQ(t.quantile(kLevelScale), 20);
  const LengthTable steps({{0, 1}, {500000, 1}, {750000, 100}, {kLevelScale, 100}});
  EXPECT_EQ(steps.quantile(400000), 1);
  EXPECT_EQ(steps.quantile(625000), 50);
}

TEST(LengthTable, UniformReachesBothEnds) {
  const LengthTable t = LengthTable::uniform(3, 5);
  Rng rng(9);
  std::set<int64_t> seen;
  for (int i = 0; i < 300; ++i) seen.insert(t.sample(rng));
  EXPECT_EQ(seen, (std::set<int64_t>{3, 4, 5}));
}

TEST(LengthTable, RejectsMalformedTables) {
  EXPECT_THROW(LengthTable({{0, 1}}), std::invalid_argument);
  EXPECT_THROW(LengthTable({{1, 1}, {kLevelScale, 2}}), std::invalid_argument);
  EXPECT_THROW(LengthTable({{0, 1}, {900000, 2}}), std::invalid_argument);
  EXPECT_THROW(LengthTable({{0, 5}, {500000, 4}, {kLevelScale, 6}}), std::invalid_argument);
  EXPECT_THROW(LengthTable({{0, 1}, {500000, 2}, {500000, 3}, {kLevelScale, 6}}), std::invalid_argument);
}

TEST(LengthTable, FromSamplesTakesOrderStatistics) {
  std::vector<int64_t> values;
  for (int64_t v = 100; v >= 0; --v) values.push_back(v);  // 0..100, unsorted
  const LengthTable t = LengthTable::from_samples(values);
  EXPECT_EQ(t.min(), 0);
  EXPECT_EQ(t.max(), 100);
  EXPECT_EQ(t.quantile(500000), 50);
  EXPECT_EQ(t.quantile(990000), 99);
  EXPECT_EQ(t.points().size(), fit_levels().size());
}

// Sampling the fitted table by inverse CDF reproduces it: the empirical quantile of 20000 draws at
// every fitted level lies between the table's values one percentage point either side.
void expect_sampling_reproduces(const LengthTable& table, const char* what) {
  Rng rng(0xA2E);
  std::vector<int64_t> draws;
  for (int i = 0; i < 20000; ++i) draws.push_back(table.sample(rng));
  std::sort(draws.begin(), draws.end());
  for (int64_t level : fit_levels()) {
    if (level == 0 || level == kLevelScale) continue;
    const int64_t empirical = draws[static_cast<size_t>(level * 19999 / kLevelScale)];
    EXPECT_GE(empirical, table.quantile(level - 10000) - 1) << what << " at level " << level;
    EXPECT_LE(empirical, table.quantile(level + 10000) + 1) << what << " at level " << level;
  }
}

TEST(AzureFit, SampledQuantilesMatchTheFittedTables) {
  expect_sampling_reproduces(azure_code_fit().prompt_tokens, "code prompt");
  expect_sampling_reproduces(azure_code_fit().output_tokens, "code output");
  expect_sampling_reproduces(azure_conv_fit().prompt_tokens, "conv prompt");
  expect_sampling_reproduces(azure_conv_fit().output_tokens, "conv output");
}

TEST(AzureFit, TablesReproduceTheTraceSummary) {
  // The summary of the Azure LLM inference traces (2023, Splitwise) that traces/src/azure_fit.cpp
  // was fitted from (traces/tools/fit_azure.py): context p50 / p99 / max and generated p50 / max.
  const TraceFit& code = azure_code_fit();
  EXPECT_EQ(code.prompt_tokens.quantile(500000), 1469);
  EXPECT_EQ(code.prompt_tokens.quantile(990000), 7436);
  EXPECT_EQ(code.prompt_tokens.max(), 7437);
  EXPECT_EQ(code.output_tokens.quantile(500000), 13);
  EXPECT_EQ(code.output_tokens.max(), 1899);
  const TraceFit& conv = azure_conv_fit();
  EXPECT_EQ(conv.prompt_tokens.quantile(500000), 1020);
  EXPECT_EQ(conv.prompt_tokens.quantile(990000), 4142);
  EXPECT_EQ(conv.prompt_tokens.max(), 14050);
  EXPECT_EQ(conv.output_tokens.quantile(500000), 129);
  EXPECT_EQ(conv.output_tokens.quantile(990000), 601);
  EXPECT_EQ(conv.output_tokens.max(), 1000);
  EXPECT_EQ(code.requests_per_ks, 2566);  // 2.57 req/s
  EXPECT_EQ(conv.requests_per_ks, 5530);  // 5.53 req/s
}

TEST(AzureFit, ArrivalsPerStepFollowTheTraceRate) {
  const Workload code = workload_by_name("azure-code");
  const Workload conv = workload_by_name("azure-conv");
  EXPECT_EQ(arrival_rate_milli(code), 2566 * 25 * 4 / 1000);  // rate × 25 ms × output scale 4
  EXPECT_EQ(arrival_rate_milli(conv), 5530 * 25 * 4 / 1000);
}

TEST(AzureFit, SimulatedPromptsFollowTheScaledTable) {
  // Prompts are the table's draws divided by 16; family members (10 %) adjust theirs a little.
  const Workload w = workload_by_name("azure-conv");
  std::map<int64_t, int64_t> prompt_of;
  for (uint64_t seed = 1; seed <= 3; ++seed)
    for (const StepRecord& st : simulate(w, seed, 200).steps)
      for (const ChunkRecord& c : st.chunks) prompt_of[c.request * 4 + static_cast<int64_t>(seed)] = c.prompt_len;
  std::vector<int64_t> prompts;
  for (const auto& [id, len] : prompt_of) prompts.push_back(len);
  ASSERT_GE(prompts.size(), 200u);
  std::sort(prompts.begin(), prompts.end());
  const int64_t median = prompts[prompts.size() / 2];
  EXPECT_GE(median, w.prompt_tokens.quantile(400000) / 16);
  EXPECT_LE(median, w.prompt_tokens.quantile(600000) / 16);
  EXPECT_LE(prompts.back(), w.prompt_tokens.max() / 16);
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "qsa_" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(RequestsCsv, ReadsOurColumnsIntoEmpiricalTables) {
  const std::string path = write_temp("ours.csv", "prompt_tokens,output_tokens\n10,2\n20,4\r\n\n30,6\n");
  const Workload w = workload_from_requests_csv(path);
  EXPECT_EQ(w.prompt_tokens.min(), 10);
  EXPECT_EQ(w.prompt_tokens.max(), 30);
  EXPECT_EQ(w.prompt_tokens.quantile(500000), 20);
  EXPECT_EQ(w.output_tokens.max(), 6);
  EXPECT_EQ(w.trace_requests_per_ks, 0);  // no timestamps: the default arrivals
}

TEST(RequestsCsv, ReadsTheAzureHeaderAndFitsTheRate) {
  const std::string path = write_temp("azure.csv",
                                      "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                      "2023-11-16 18:17:03.9799600,4808,10\n"
                                      "2023-11-16 18:17:05.9799600,3180,8\n"
                                      "2023-11-16 18:17:07.9799600,100,300");
  const Workload w = workload_from_requests_csv(path);
  EXPECT_EQ(w.prompt_tokens.max(), 4808);
  EXPECT_EQ(w.output_tokens.min(), 8);
  EXPECT_EQ(w.trace_requests_per_ks, 500);  // 2 gaps in 4 s
}

Error csv_error(const std::string& name, const std::string& text) {
  try {
    workload_from_requests_csv(write_temp(name, text));
  } catch (const InputError& e) {
    return e.error();
  }
  return Error{"no error", 0, "", ""};
}

TEST(RequestsCsv, ErrorsNameTheLineTheColumnAndTheRule) {
  EXPECT_EQ(csv_error("e1.csv", "prompt_tokens,output_tokens\n10,2\n12,x\n"),
            (Error{"output_tokens", 3, "not-an-integer", ""}));
  EXPECT_EQ(csv_error("e2.csv", "prompt_tokens,output_tokens\n10,2\n0,4\n"),
            (Error{"prompt_tokens", 3, "out-of-range", ""}));
  EXPECT_EQ(csv_error("e3.csv", "prompt_tokens,output_tokens\n10,2,7\n"), (Error{"input", 2, "wrong-field-count", ""}));
  EXPECT_EQ(csv_error("e4.csv", "prompt,output\n10,2\n"), (Error{"prompt_tokens", 1, "missing-column", ""}));
  EXPECT_EQ(csv_error("e5.csv", "ContextTokens,Other\n10,2\n"), (Error{"GeneratedTokens", 1, "missing-column", ""}));
  EXPECT_EQ(csv_error("e6.csv", "prompt_tokens,output_tokens\n"), (Error{"input", 2, "empty", ""}));
  EXPECT_EQ(csv_error("e7.csv",
                      "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03,1,1\n2023-11-16 18-17-05,1,1\n"),
            (Error{"TIMESTAMP", 3, "malformed-timestamp", ""}));
  EXPECT_EQ(csv_error("e8.csv", ""), (Error{"input", 1, "empty", ""}));
  try {
    workload_from_requests_csv("/nonexistent/requests.csv");
    ADD_FAILURE() << "no error for a missing file";
  } catch (const InputError& e) {
    EXPECT_EQ(e.error(), (Error{"input", -1, "unreadable", ""}));
  }
  try {
    workload_from_requests_csv(write_temp("e9.csv", "prompt_tokens,output_tokens\n1,1\n2,-3\n"));
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("e9.csv:3: column output_tokens"), std::string::npos) << e.what();
  }
}

TEST(Workloads, UnknownNameListsTheChoices) {
  try {
    workload_by_name("defualt");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.error(), (Error{"workload", -1, "unknown-workload", ""}));
    for (const std::string& name : workload_names())
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << name;
  }
}

TEST(Workloads, EveryNameResolvesWithADescription) {
  const auto names = workload_names();
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
  EXPECT_EQ(names.size(), 16u);
  for (const std::string& name : names) {
    const Workload w = workload_by_name(name);
    EXPECT_EQ(w.name, name);
    EXPECT_FALSE(w.description.empty()) << name;
    EXPECT_NE(workload_help().find(name), std::string::npos) << name;
  }
}

TEST(Workloads, ResolvedConfigFitsTheLongestRequest) {
  for (const std::string& name : workload_names()) {
    for (uint64_t seed = 1; seed <= 8; ++seed) {
      const Workload w = resolve_workload(workload_by_name(name), seed);
      const ScenarioConfig& c = w.config;
      const int64_t longest = scaled_length(w.prompt_tokens.max(), w.prompt_length_scale) +
                              scaled_length(w.output_tokens.max(), w.output_length_scale);
      if (w.fixed_max_position > 0) {  // step-edges: the table's size is the class; committed < longest
        EXPECT_EQ(c.max_position, w.fixed_max_position) << name << " seed " << seed;
        EXPECT_GE(c.max_position, longest - 1 + (c.mrope ? 64 : 0)) << name << " seed " << seed;
      } else {
        EXPECT_GE(c.max_position - 64, longest + 64) << name << " seed " << seed;
      }
      EXPECT_GE(c.num_compressed_blocks * c.block_size, longest) << name << " seed " << seed;
      EXPECT_GE(c.num_ring_blocks, c.max_num_seqs) << name;
      EXPECT_EQ(c.seed, seed);
      EXPECT_TRUE(w.mix.empty());
    }
  }
}

TEST(BlockPool, SharedBlockReturnsOnlyAfterItsLastHolder) {
  BlockPool pool(4, Rng(1));
  const int32_t a = pool.allocate();
  pool.share(a);
  EXPECT_EQ(pool.refcount(a), 2);
  pool.release(a);
  EXPECT_EQ(pool.free_count(), 3);
  pool.release(a);
  EXPECT_EQ(pool.free_count(), 4);
  EXPECT_THROW(pool.release(a), std::logic_error);
  std::set<int32_t> ids;
  for (int i = 0; i < 4; ++i) ids.insert(pool.allocate());
  EXPECT_EQ(ids, (std::set<int32_t>{0, 1, 2, 3}));
  EXPECT_THROW(pool.allocate(), std::logic_error);
}

TEST(BlockPool, HandsOutIdsInAShuffledOrder) {
  BlockPool pool(64, Rng(2));
  int64_t in_order = 0;
  int32_t previous = pool.allocate();
  for (int i = 1; i < 64; ++i) {
    const int32_t b = pool.allocate();
    in_order += b == previous + 1;
    previous = b;
  }
  EXPECT_LT(in_order, 8);
}

TEST(CudaGraphPadding, CaptureSizesFollowVllmsDefaults) {
  EXPECT_EQ(cuda_graph_capture_sizes(40), (std::vector<int64_t>{1, 2, 4, 8, 16, 24, 32, 40}));
  const auto sizes = cuda_graph_capture_sizes(300);
  EXPECT_EQ(sizes.back(), 300);
  EXPECT_TRUE(std::binary_search(sizes.begin(), sizes.end(), 248));
  EXPECT_TRUE(std::binary_search(sizes.begin(), sizes.end(), 272));
  EXPECT_FALSE(std::binary_search(sizes.begin(), sizes.end(), 264));
  EXPECT_EQ(padded_token_count(sizes, 13), 16);
  EXPECT_EQ(padded_token_count(sizes, 301), 301);
}

}  // namespace
}  // namespace qsa::traces
