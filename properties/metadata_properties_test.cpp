// Properties of the metadata of SPEC 2 on arbitrary valid batches, for the backend under test:
// the invariants of SPEC 7.4 hold, the output equals the reference's bit for bit, and validation
// gives the same error as qsa::validate() for the same input.

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <iostream>

#include "generators/invalid_inputs.hpp"
#include "qsa/traces/check_engine.hpp"
#include "qsa/validate.hpp"
#include "support/backend_under_test.hpp"
#include "support/gpu_guard.hpp"

namespace qsa {
namespace {

TEST(MetadataProperties, InvariantsHoldAndOutputsEqualTheReference) {
  QSA_BACKEND_UNDER_TEST(backend);
  const bool passed = rc::check("metadata of " + backend->name() + " on arbitrary batches", [&] {
    const MetadataInput input = *testing::metadata_inputs();
    if (const auto finding = traces::check_metadata_against_reference(*backend, input)) RC_FAIL(finding->to_string());
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
    if (const auto finding = traces::check_metadata_against_reference(*backend, input)) RC_FAIL(finding->to_string());
    Error expected;
    const Status expected_status = validate(input, &expected);
    RC_CLASSIFY(expected_status != Status::kOk, "invalid");
  });
  EXPECT_TRUE(passed) << "replay: " << testing::rerun_command() << " (with the RC_PARAMS printed above)";
}

}  // namespace
}  // namespace qsa
