# Test helpers. CTest names are dotted by folder (prefix: `reference.`, `cli.`, ...); labels say the
# kind of test (unit, property, differential, gpu, trace, fuzz, bench) so that `ctest -L` picks a kind.
if(QSA_BUILD_TESTS)
  enable_testing()
endif()

# A GPU test binary runs through tools/ctest_gpu_launcher.sh (CTest runs a target's
# CROSSCOMPILING_EMULATOR before it, discovery included): with `ctest --resource-spec-file` (made by
# tools/ctest_gpu_resources.py) each test that declares RESOURCE_GROUPS gpus:1 sees only the GPU
# CTest gave it, so `ctest -j` runs GPU tests on every GPU of the host, never two on one.
function(qsa_gpu_test_target target)
  set_target_properties(${target} PROPERTIES CROSSCOMPILING_EMULATOR "${PROJECT_SOURCE_DIR}/tools/ctest_gpu_launcher.sh")
endfunction()

# qsa_add_test(NAME <exe> PREFIX <folder.> LABELS <labels...> SOURCES <files...> LIBS <libs...> [ENVIRONMENT <VAR=value...>])
# Builds a GoogleTest executable and registers each test case with CTest. Discovery runs
# before the tests (PRE_TEST) so a build without a GPU never executes GPU code at build time.
# A GTEST_SKIP() case shows as "Skipped" in CTest (GoogleTestAddTests sets the regex).
function(qsa_add_test)
  cmake_parse_arguments(T "" "NAME;PREFIX;TIMEOUT" "LABELS;SOURCES;LIBS;ENVIRONMENT" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main)
  qsa_target_warnings(${T_NAME})
  if(QSA_SANITIZE)
    # The sanitizers are for the code under test, which keeps -O1: the tests' own sources (GoogleTest
    # macros, instrumented) compile in half the time at -O0 and run as checked.
    target_compile_options(${T_NAME} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-O0>)
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 600)
  endif()
  set(resources "")
  if("gpu" IN_LIST T_LABELS)
    qsa_gpu_test_target(${T_NAME})
    set(resources " RESOURCE_GROUPS gpus:1")
  endif()
  gtest_discover_tests(${T_NAME}
    TEST_PREFIX "${T_PREFIX}"
    TEST_LIST ${T_NAME}_TESTS
    DISCOVERY_MODE PRE_TEST
    DISCOVERY_TIMEOUT 60
    NO_PRETTY_VALUES  # our parameters are named: keeps "# GetParam() = ..." out of the CTest names
    PROPERTIES TIMEOUT ${T_TIMEOUT} ENVIRONMENT "${T_ENVIRONMENT}")
  # Labels are set by a script CTest includes after the discovered tests: a list-valued LABELS
  # (e.g. "gpu;differential") does not survive gtest_discover_tests' PROPERTIES (CMake 3.25).
  set(labels_script "${CMAKE_CURRENT_BINARY_DIR}/${T_NAME}_labels.cmake")
  file(WRITE "${labels_script}"
    "if(${T_NAME}_TESTS)\n  set_tests_properties(\${${T_NAME}_TESTS} PROPERTIES LABELS \"${T_LABELS}\"${resources})\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${labels_script}")
endfunction()
