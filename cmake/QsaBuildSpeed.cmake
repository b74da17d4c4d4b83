# qsa_unity_build(<target>...): compile each target's sources in batches (CMake unity builds). Our
# headers pull in CLI11 (header-only in Debian), nlohmann/json and GoogleTest, whose parsing and
# code generation cost every translation unit seconds; a batch pays it once. Off with
# -DQSA_UNITY_BUILD=OFF for one-file rebuilds while editing. Sources with their own compile options
# (the strict-float ones of reference/ and planted/) are never batched: CMake leaves them out.
function(qsa_unity_build)
  if(QSA_UNITY_BUILD)
    set_target_properties(${ARGN} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
  endif()
endfunction()
