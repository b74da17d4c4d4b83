// Properties of the metadata of SPEC 2 on arbitrary valid batches, for the backend under test:
// the invariants of SPEC 7.4 hold, the output equals the reference's bit for bit, and validation
// gives the same error as qsa::validate() for the same input.

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdio>
#include <iostream>

#include "generators/invalid_inputs.hpp"
#include "qsa/traces/batch_generator.hpp"
#include "qsa/engine/check_engine.hpp"
#include "qsa/traces/invalid_batch.hpp"
#include "qsa/validate.hpp"
#include "support/backend_under_test.hpp"
#include "support/gpu_guard.hpp"

namespace qsa {
namespace {

TEST(MetadataProperties, InvariantsHoldAndOutputsEqualTheReference) {
  QSA_BACKEND_UNDER_TEST(backend);
  const bool passed = rc::check("metadata of " + backend->name() + " on arbitrary batches", [&] {
    const MetadataInput input = *testing::metadata_inputs();
    if (const auto finding = engine::check_metadata_against_reference(*backend, input)) RC_FAIL(finding->to_string());
    RC_TAG(to_string(input.cache.kind));
  });
  EXPECT_TRUE(passed) << "replay: " << testing::rerun_command() << " (with the RC_PARAMS printed above)";
}

TEST(MetadataProperties, ValidationErrorsEqualTheContractsErrors) {
  QSA_BACKEND_UNDER_TEST(backend);
  const bool passed = rc::check("validation of " + backend->name(), [&] {
    const MetadataInput input = *testing::possibly_invalid_metadata_input();
    // The engine holds the backend to the reference's status and error (field, index, rule), and to
    // an untouched output on an error (SPEC 1.4); on a valid input to every output.
    if (const auto finding = engine::check_metadata_against_reference(*backend, input)) RC_FAIL(finding->to_string());
    Error expected;
    const Status expected_status = validate(input, &expected);
    RC_CLASSIFY(expected_status != Status::kOk, "invalid");
  });
  EXPECT_TRUE(passed) << "replay: " << testing::rerun_command() << " (with the RC_PARAMS printed above)";
}

// Each rule of SPEC 1.4 broken at least once, whatever RapidCheck draws above: a backend that skips
// one rule (builds the output anyway) is caught for certain.
TEST(MetadataProperties, EveryValidationRuleBrokenGivesTheContractsError) {
  QSA_BACKEND_UNDER_TEST(backend);
  constexpr uint64_t kSeed = 18;
  std::printf("seed %llu (fixed; replay: %s)\n", static_cast<unsigned long long>(kSeed),
              testing::rerun_command().c_str());
  traces::Rng rng(kSeed);
  traces::RngChoice choice(rng);
  for (int rule = 0; rule < traces::kNumBreakableRules; ++rule) {
    int broken = 0;
    for (int draw = 0; draw < 200 && broken < 3; ++draw) {
      MetadataInput input = traces::random_metadata_input(rng, std::nullopt, 512).input;
      if (!traces::break_rule(choice, rule, &input)) continue;
      ++broken;
      const auto finding = engine::check_metadata_against_reference(*backend, input);
      EXPECT_FALSE(finding.has_value()) << "rule " << rule << ", draw " << draw << ": " << finding->to_string();
    }
    EXPECT_EQ(broken, 3) << "rule " << rule << " broken in only " << broken << " of 200 draws";
  }
}

}  // namespace
}  // namespace qsa
