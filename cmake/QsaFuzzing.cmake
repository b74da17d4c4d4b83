# Fuzzing (fuzz/). With QSA_ENABLE_FUZZING (the fuzz preset, clang) every C and C++ source is
# built with libFuzzer's coverage instrumentation, AddressSanitizer and UndefinedBehaviorSanitizer,
# and each fuzz target links libFuzzer. Without it (g++, the other presets) the same target
# sources build as replay executables (fuzz/replay_main.cpp) that run given files through
# LLVMFuzzerTestOneInput, and CTest replays fuzz/corpus/<target>/ and fuzz/regressions/<target>/.
# With QSA_LIB_FUZZING_ENGINE as well (OSS-Fuzz, ClusterFuzzLite: .clusterfuzzlite/build.sh) the
# project adds no sanitizer or coverage flag of its own: the engine chooses them (address,
# undefined, memory or coverage builds) through CFLAGS and CXXFLAGS, and each fuzz target links
# the engine's argument instead of -fsanitize=fuzzer.

if(QSA_ENABLE_FUZZING)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "QSA_ENABLE_FUZZING needs clang and libFuzzer (use the fuzz preset: cmake --preset fuzz)")
  endif()
  if(QSA_LIB_FUZZING_ENGINE)
    separate_arguments(QSA_FUZZ_ENGINE_LINK UNIX_COMMAND "${QSA_LIB_FUZZING_ENGINE}")
  else()
    # Host code only: nvcc (a CUDA fuzz build on a GPU machine) takes no -fsanitize.
    add_compile_options(
      "$<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=fuzzer-no-link,address,undefined;-fno-omit-frame-pointer;-fno-sanitize-recover=undefined>")
    add_link_options(-fsanitize=address,undefined)
    set(QSA_FUZZ_ENGINE_LINK -fsanitize=fuzzer)
  endif()
endif()

# FuzzedDataProvider.h comes with clang's compiler-rt (Debian: libclang-rt-14-dev). It is copied
# into the build tree, so a g++ replay build includes it without clang's own builtin headers.
set(QSA_FUZZ_INCLUDE_DIR "")
file(GLOB _qsa_fdp_candidates
  /usr/lib/llvm-*/lib/clang/*/include/fuzzer/FuzzedDataProvider.h
  /usr/lib/clang/*/include/fuzzer/FuzzedDataProvider.h)
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-resource-dir OUTPUT_VARIABLE _qsa_resource_dir
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(EXISTS "${_qsa_resource_dir}/include/fuzzer/FuzzedDataProvider.h")
    set(_qsa_fdp_candidates "${_qsa_resource_dir}/include/fuzzer/FuzzedDataProvider.h")
  endif()
endif()
if(_qsa_fdp_candidates)
  list(SORT _qsa_fdp_candidates COMPARE NATURAL ORDER DESCENDING)
  list(GET _qsa_fdp_candidates 0 _qsa_fdp)
  configure_file(${_qsa_fdp} ${PROJECT_BINARY_DIR}/fuzz-include/fuzzer/FuzzedDataProvider.h COPYONLY)
  set(QSA_FUZZ_INCLUDE_DIR ${PROJECT_BINARY_DIR}/fuzz-include)
endif()

# qsa_add_fuzzer(NAME <fuzz_target> SOURCES <files...> LIBS <libs...>)
# A libFuzzer target (QSA_ENABLE_FUZZING) or a replay executable of the same name, and, when the
# tests are built, the CTest replays fuzz.<target>.corpus and fuzz.<target>.regressions (label
# fuzz-replay; an empty folder is reported as skipped).
function(qsa_add_fuzzer)
  cmake_parse_arguments(F "" "NAME" "SOURCES;LIBS" ${ARGN})
  if(QSA_ENABLE_FUZZING)
    add_executable(${F_NAME} ${F_SOURCES})
    target_link_options(${F_NAME} PRIVATE ${QSA_FUZZ_ENGINE_LINK})
  else()
    add_executable(${F_NAME} ${F_SOURCES} ${PROJECT_SOURCE_DIR}/fuzz/replay_main.cpp)
  endif()
  target_link_libraries(${F_NAME} PRIVATE ${F_LIBS})
  qsa_target_warnings(${F_NAME})
  if(QSA_BUILD_TESTS AND NOT QSA_ENABLE_FUZZING)
    foreach(set corpus regressions)
      add_test(NAME fuzz.${F_NAME}.${set} COMMAND ${F_NAME} ${PROJECT_SOURCE_DIR}/fuzz/${set}/${F_NAME})
      set_tests_properties(fuzz.${F_NAME}.${set} PROPERTIES LABELS fuzz-replay SKIP_RETURN_CODE 77 TIMEOUT 900)
    endforeach()
  endif()
endfunction()
