# Project options. Every option has a default that works on a fresh Debian 12 machine.

set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)

if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "Build type" FORCE)
endif()

set(QSA_ENABLE_CUDA AUTO CACHE STRING "Build the CUDA backend: AUTO (when nvcc is found), ON or OFF")
set_property(CACHE QSA_ENABLE_CUDA PROPERTY STRINGS AUTO ON OFF)
option(QSA_ENABLE_FUZZING "Build libFuzzer targets (needs clang)" OFF)
set(QSA_LIB_FUZZING_ENGINE "" CACHE STRING
  "With QSA_ENABLE_FUZZING: an external engine's link argument ($LIB_FUZZING_ENGINE); sanitizers then come from CFLAGS/CXXFLAGS only")
option(QSA_BUILD_CLI "Build the qsacheck command" ON)
option(QSA_BUILD_TESTS "Build the test suite" ON)
option(QSA_BUILD_BENCHMARKS "Build the Google Benchmark binaries" ON)
option(QSA_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(QSA_UNITY_BUILD "Compile the largest targets in batches of sources (cmake/QsaBuildSpeed.cmake)" ON)
option(QSA_STATIC_RUNTIME "Link libstdc++/libgcc statically (relocatable GPU bundle)" OFF)
option(QSA_CUDA_SHARED "Build the CUDA code (qsa_cuda, the planted kernels) as shared libraries on the shared CUDA runtime, so every executable uses one copy of the device code (GPU bundle)" OFF)
set(QSA_TEST_LEVEL quick CACHE STRING "Property-test effort: quick (CI), full, or soak")
set_property(CACHE QSA_TEST_LEVEL PROPERTY STRINGS quick full soak)

# Executables (and the shared libraries of QSA_CUDA_SHARED) from every folder land together in build/bin.
set(CMAKE_RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)
set(CMAKE_LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)
if(QSA_CUDA_SHARED)
  set(CMAKE_POSITION_INDEPENDENT_CODE ON)  # the static libraries end up in the shared ones
endif()

if(QSA_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
if(QSA_STATIC_RUNTIME)
  add_link_options(-static-libstdc++ -static-libgcc)
  # The GPU bundle is relocatable: executables find libbenchmark (and the CUDA libraries) beside themselves.
  set(CMAKE_BUILD_RPATH "\$ORIGIN")
  set(CMAKE_INSTALL_RPATH "\$ORIGIN")
endif()

# The SPEC version (docs/spec.md) this build implements (printed by qsacheck --version).
set(QSA_SPEC_VERSION 1)
