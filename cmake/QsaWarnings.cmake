# qsa_target_warnings(<target>): the warning set for our own code (never for dependencies).
function(qsa_target_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wshadow -Wconversion -Wno-sign-conversion>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
endfunction()

# qsa_strict_float(<target-or-source...>): SPEC 6 forbids contraction into FMA and excess precision.
function(qsa_strict_float_sources)
  set_source_files_properties(${ARGN} PROPERTIES COMPILE_OPTIONS "-ffp-contract=off;-fno-fast-math")
endfunction()
