// Properties of the metadata of SPEC 2 on arbitrary valid batches, for the backend under test:
// the invariants of SPEC 7.4 hold, the output equals the reference's bit for bit, and validation
// gives the same error as qsa::validate() for the same input.

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <iostream>

#include "generators/invalid_inputs.hpp"
#include "qsa/invariants.hpp"
#include "qsa/reference/metadata.hpp"
#include "qsa/traces/compare.hpp"
#include "qsa/validate.hpp"
#include "support/backend_under_test.hpp"
#include "support/gpu_guard.hpp"

namespace qsa {
namespace {

TEST(MetadataProperties, InvariantsHoldAndOutputsEqualTheReference) {
  QSA_BACKEND_UNDER_TEST(backend);
  const bool passed = rc::check("metadata of " + backend->name() + " on arbitrary batches", [&] {
    const MetadataInput input = *testing::metadata_inputs();
    MetadataOutput out = make_poisoned_metadata_output(input);
    Error error;
    const Status status = backend->build_metadata(input, &out, &error);
    RC_ASSERT(status == Status::kOk);
    const auto violation = check_metadata_invariants(input, out);
    if (violation) RC_FAIL("SPEC 7.4: " + to_string(*violation));
    MetadataOutput expected;
    RC_ASSERT(reference::build_metadata(input, &expected, &error) == Status::kOk);
    const auto mismatch = traces::compare_metadata(input, expected, out);
    if (mismatch) RC_FAIL("differs from the reference: " + mismatch->to_string());
    RC_TAG(to_string(input.cache.kind));
  });
  EXPECT_TRUE(passed) << "replay: " << testing::rerun_command() << " (with the RC_PARAMS printed above)";
}

TEST(MetadataProperties, ValidationErrorsEqualTheContractsErrors) {
  QSA_BACKEND_UNDER_TEST(backend);
  const bool passed = rc::check("validation of " + backend->name(), [&] {
    const MetadataInput input = *testing::possibly_invalid_metadata_input();
    Error expected;
    const Status expected_status = validate(input, &expected);
    MetadataOutput out = make_poisoned_metadata_output(input);
    const MetadataOutput untouched = out;
    Error error;
    const Status status = backend->build_metadata(input, &out, &error);
    RC_ASSERT(status == expected_status);
    if (expected_status != Status::kOk) {
      RC_ASSERT(error == expected);                           // field, index and rule
      RC_ASSERT(out.slot_mapping == untouched.slot_mapping);  // nothing written on failure
      RC_ASSERT(out.token_to_req == untouched.token_to_req);
    }
    RC_CLASSIFY(expected_status != Status::kOk, "invalid");
  });
  EXPECT_TRUE(passed) << "replay: " << testing::rerun_command() << " (with the RC_PARAMS printed above)";
}

}  // namespace
}  // namespace qsa
