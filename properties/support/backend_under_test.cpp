#include "support/backend_under_test.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include "qsa/backends/registry.hpp"

namespace qsa::testing {

std::string backend_under_test_name() {
  const char* name = std::getenv("QSA_BACKEND");
  return name != nullptr && *name != '\0' ? name : "reference";
}

traces::FloatTolerance float_tolerance_under_test() {
  const char* text = std::getenv("QSA_FLOAT_TOLERANCE");
  if (text == nullptr || *text == '\0') return {};
  const auto tolerance = traces::parse_float_tolerance(text);
  if (!tolerance)
    throw std::invalid_argument(std::string("QSA_FLOAT_TOLERANCE: ") + traces::kFloatToleranceRule + ", got '" + text +
                                "'");
  return *tolerance;
}

std::unique_ptr<Backend> backend_under_test(std::string* reason) {
  const std::string name = backend_under_test_name();
  auto backend = BackendRegistry::global().create(name);
  if (!backend) {
    *reason = "QSA_BACKEND=" + name + " is not a registered backend";
    return nullptr;
  }
  std::string why;
  if (backend->probe(&why) != Status::kOk) {
    *reason = name + " cannot run here: " + why;
    return nullptr;
  }
  return backend;
}

TestLevel test_level() {
  const char* level = std::getenv("QSA_TEST_LEVEL");
  const std::string text = level != nullptr ? level : "quick";
  if (text == "soak") return TestLevel::kSoak;
  if (text == "full") return TestLevel::kFull;
  return TestLevel::kQuick;
}

int64_t scaled(int64_t quick_count) {
  switch (test_level()) {
    case TestLevel::kSoak:
      return quick_count * 100;
    case TestLevel::kFull:
      return quick_count * 10;
    case TestLevel::kQuick:
      break;
  }
  return quick_count;
}

std::string rerun_command() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string command = "QSA_BACKEND=" + backend_under_test_name();
  if (const char* level = std::getenv("QSA_TEST_LEVEL")) command += std::string(" QSA_TEST_LEVEL=") + level;
  command += " build/bin/property_tests --gtest_filter=";
  if (info != nullptr) command += std::string(info->test_suite_name()) + "." + info->name();
  return command;
}

}  // namespace qsa::testing
