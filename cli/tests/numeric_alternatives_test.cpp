// Every planted numerical alternative of SPEC 6 (qsa/numeric_alternatives.hpp) is separated from
// the recipe by the default campaign's content (versions 4 and 5, docs/content.md "Numerical
// alternatives") within the first 200 steps of its scenarios, taken in the campaign's order, at
// each of seeds 1-5. A failure prints the seed, the scenarios run and the command that replays it.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "qsa/engine/campaign_jobs.hpp"
#include "qsa/backends/planted.hpp"
#include "qsa/engine/scenario_runner.hpp"
#include "qsa/numeric_alternatives.hpp"
#include "qsa/traces/alternative_content.hpp"
#include "qsa/traces/content.hpp"
#include "qsa/traces/simulator.hpp"

namespace qsa::cli {
namespace {

constexpr int64_t kStepsPerScenario = 200;

// The planted bugs that replace one step of SPEC 6 by one of its alternatives.
const std::vector<std::string>& alternative_bugs() {
  static const std::vector<std::string> names = {
      "bug:fma-contraction",         "bug:pool-reciprocal-multiply", "bug:pool-pairwise-tree",
      "bug:pool-reverse-order",      "bug:rsqrt-single-rounding",    "bug:rope-products-in-bf16",
      "bug:bf16-nan-canonical",      "bug:sum-of-squares-sequential", "bug:sum-of-squares-halving-tree",
      "bug:norm-divides-by-rms",     "bug:norm-scale-reassociated",  "bug:sum-of-squares-fma",
      "bug:rope-fma"};
  return names;
}

TEST(NumericAlternatives, EveryPlantedOneIsInTheCatalog) {
  for (const std::string& name : alternative_bugs()) {
    const auto& bugs = backends::planted_cpu_bugs();
    EXPECT_TRUE(std::any_of(bugs.begin(), bugs.end(), [&](const auto& b) { return b.name == name; })) << name;
  }
  for (const NumericAlternativeInfo& info : numeric_alternatives()) {
    EXPECT_NE(std::string(info.step), "") << info.name;
    EXPECT_NE(std::string(info.instead), "") << info.name;
  }
}

class SeparatedByTheDefaultCampaign : public ::testing::TestWithParam<std::string> {};

TEST_P(SeparatedByTheDefaultCampaign, WithinTheFirst200StepsOfItsScenariosAtSeeds1To5) {
  const std::string& bug = GetParam();
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    std::string where;
    bool caught = false;
    int scenarios = 0;
    for (const engine::CampaignJob& job : engine::default_campaign(seed)) {
      const traces::Scenario scenario =
          traces::simulate(job.workload, job.seed, std::min<int64_t>(job.steps, kStepsPerScenario));
      const auto backend = backends::make_planted_backend(bug);
      ASSERT_NE(backend, nullptr) << bug;
      ++scenarios;
      const auto failure = engine::run_scenario(scenario, *backend);
      if (failure) {
        ASSERT_FALSE(failure->invalid_scenario) << engine::to_string(*failure);
        where = scenario.config.workload + " (scenario seed " + std::to_string(job.seed) + "): " +
                engine::to_string(*failure);
        caught = true;
        break;
      }
    }
    std::cout << bug << " seed " << seed << ": " << (caught ? where.substr(0, 160) : std::string("not caught"))
              << "\n";
    EXPECT_TRUE(caught) << bug << " survived the first " << kStepsPerScenario << " steps of all " << scenarios
                        << " scenarios of the default campaign at seed " << seed
                        << "; replay: qsacheck check --backend " << bug << " --seed " << seed;
  }
}

std::string test_name(const ::testing::TestParamInfo<std::string>& param) {
  std::string name = param.param.substr(4);
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(Planted, SeparatedByTheDefaultCampaign, ::testing::ValuesIn(alternative_bugs()), test_name);

// Whether bf16(s * (1/C)) == bf16(s / C) for every finite binary32 s >= 0 (negative s mirrors it):
// exhaustively over one binade of normal quotients (both sides scale by 2 with s there) and over
// every s whose quotient is subnormal or in the lowest normal binades. For C = 5 it holds: the
// reciprocal multiply is then provably the recipe (docs/planted-bugs.md).
bool reciprocal_multiply_is_the_quotient(int64_t c) {
  const float reciprocal = 1.0f / static_cast<float>(c);
  auto same = [&](uint32_t bits) {
    float s = 0;
    std::memcpy(&s, &bits, sizeof s);
    return bf16_from_float(s / static_cast<float>(c)) == bf16_from_float(s * reciprocal);
  };
  for (uint32_t bits = 0x3F800000u; bits < 0x40000000u; ++bits)  // s in [1, 2)
    if (!same(bits)) return false;
  float limit = std::ldexp(static_cast<float>(c), -124);  // quotients below 2^-124
  uint32_t limit_bits = 0;
  std::memcpy(&limit_bits, &limit, sizeof limit_bits);
  for (uint32_t bits = 0; bits < limit_bits; ++bits)
    if (!same(bits)) return false;
  return true;
}

// The content planted for each alternative does separate it, element by element, at every compress
// ratio the workloads use, powers of two or not: each pool tuple differs from the recipe under its
// alternative, each norm row under its norm, each RoPE row on pair 0 at the tiny table entries.
TEST(NumericAlternatives, PlantedInputsDifferFromTheRecipeAtEveryCompressRatio) {
  for (int64_t c : {2, 3, 4, 5, 6, 8, 12, 16}) {
    traces::ScenarioConfig config;
    config.seed = 100 + static_cast<uint64_t>(c);
    config.compress_ratio = c;
    const StepConfig step = config.step_config();
    const traces::RowContent content(config, step);
    ASSERT_NE(content.alternatives(), nullptr);
    const traces::AlternativeContent& alternatives = *content.alternatives();
    const bool power_of_two = (c & (c - 1)) == 0;
    if (alternatives.inputs(NumericAlternative::kPoolReciprocalMultiply).empty())
      EXPECT_TRUE(power_of_two || reciprocal_multiply_is_the_quotient(c)) << "C " << c << ": no tuple found";
    else
      EXPECT_FALSE(reciprocal_multiply_is_the_quotient(c)) << "C " << c;
    EXPECT_EQ(alternatives.inputs(NumericAlternative::kPoolReverseOrder).empty(), c < 3) << "C " << c;
    EXPECT_EQ(alternatives.inputs(NumericAlternative::kPoolPairwiseTree).empty(), c < 4) << "C " << c;
    for (NumericAlternative a : {NumericAlternative::kPoolReciprocalMultiply, NumericAlternative::kPoolPairwiseTree,
                                 NumericAlternative::kPoolReverseOrder}) {
      for (const std::vector<Bf16>& tuple : alternatives.inputs(a)) {
        std::vector<float> members;
        for (Bf16 m : tuple) members.push_back(float_from_bf16(m));
        EXPECT_NE(pool_element_with(a, members.data(), c), pool_element(members.data(), c))
            << numeric_alternative_info(a).name << " C " << c;
      }
    }
    std::vector<Bf16> ref(static_cast<size_t>(config.head_dim)), alt(ref.size());
    EXPECT_FALSE(alternatives.inputs(NumericAlternative::kRsqrtSingleRounding).empty());
    for (const std::vector<Bf16>& row : alternatives.inputs(NumericAlternative::kRsqrtSingleRounding)) {
      rms_norm(row.data(), step.w_q.data(), config.head_dim, step.eps, ref.data());
      rms_norm_with(NumericAlternative::kRsqrtSingleRounding, row.data(), step.w_q.data(), config.head_dim, step.eps,
                    alt.data());
      EXPECT_NE(ref, alt);
    }
    const std::array<Bf16, 2> tiny = traces::tiny_rope_entries(config.seed);
    const int64_t hp = config.rotary_dim / 2;
    EXPECT_FALSE(alternatives.inputs(NumericAlternative::kRopeFma).empty());
    for (const std::vector<Bf16>& row : alternatives.inputs(NumericAlternative::kRopeFma)) {
      rms_norm(row.data(), step.w_q.data(), config.head_dim, step.eps, ref.data());
      const float a = float_from_bf16(ref[0]);
      const float b = float_from_bf16(ref[static_cast<size_t>(hp)]);
      const float cs = float_from_bf16(tiny[0]);
      const float sn = float_from_bf16(tiny[1]);
      EXPECT_NE(rope_pair_fma(a, b, cs, sn), rope_pair(a, b, cs, sn));
    }
  }
}

// Content version 5 builds two rows for each of the norm alternatives a drawn row almost never
// separates, at every head dim and rotary dim a workload can take, with the special norm weights
// too: each row's norm differs from the recipe at an element RoPE passes through (rd <= e < D), so
// q_out shows it. The fused sum of squares needs D = 32 and a subnormal eps (step-edges'
// column-major scenario has both). Version 4 (recorded traces) has none of them.
TEST(NumericAlternatives, BuiltNormRowsDifferPastTheRotaryDimAtEveryHeadDim) {
  const NumericAlternative built[] = {
      NumericAlternative::kSumOfSquaresHalvingTree, NumericAlternative::kSumOfSquaresFma,
      NumericAlternative::kNormDividesByRms, NumericAlternative::kNormScaleReassociated};
  for (int64_t d : {32, 64, 128, 256, 512}) {
    for (int64_t rd : {int64_t{2}, d / 2, d - 2}) {
      for (uint64_t seed : {1, 2, 3, 4}) {
        traces::ScenarioConfig config;
        config.seed = seed * 1000 + static_cast<uint64_t>(d + rd);
        config.head_dim = d;
        config.rotary_dim = rd;
        config.special_weights = seed == 3;
        config.eps = seed == 4 ? 1e-40f : 1e-6f;  // subnormal, as step-edges:column-major's
        const StepConfig step = config.step_config();
        const traces::RowContent content(config, step);
        ASSERT_NE(content.alternatives(), nullptr);
        std::vector<Bf16> ref(static_cast<size_t>(d)), alt(ref.size());
        for (NumericAlternative a : built) {
          const auto& rows = content.alternatives()->inputs(a);
          const bool fused_possible = d == 32 && seed == 4;
          EXPECT_EQ(rows.size(), a != NumericAlternative::kSumOfSquaresFma || fused_possible ? 2u : 0u)
              << numeric_alternative_info(a).name << " D " << d << " rd " << rd << " eps " << config.eps;
          for (const std::vector<Bf16>& row : rows) {
            rms_norm(row.data(), step.w_q.data(), d, step.eps, ref.data());
            rms_norm_with(a, row.data(), step.w_q.data(), d, step.eps, alt.data());
            EXPECT_FALSE(std::equal(ref.begin() + rd, ref.end(), alt.begin() + rd))
                << numeric_alternative_info(a).name << " D " << d << " rd " << rd;
          }
        }
        config.content_version = 4;
        const traces::RowContent version4(config, config.step_config());
        for (NumericAlternative a : built) EXPECT_TRUE(version4.alternatives()->inputs(a).empty());
      }
    }
  }
}

}  // namespace
}  // namespace qsa::cli
