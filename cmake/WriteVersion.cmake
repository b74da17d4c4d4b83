# Run at build time by cli/CMakeLists.txt: writes version.cpp with the current commit.
# configure_file leaves the file untouched when nothing changed, so nothing rebuilds needlessly.
set(QSA_GIT_COMMIT "unknown")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=12 HEAD
    WORKING_DIRECTORY ${SOURCE_DIR}
    OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  if(rc EQUAL 0 AND commit)
    set(QSA_GIT_COMMIT ${commit})
    execute_process(COMMAND ${GIT_EXECUTABLE} status --porcelain --untracked-files=no
      WORKING_DIRECTORY ${SOURCE_DIR} OUTPUT_VARIABLE dirty ERROR_QUIET)
    if(dirty)
      set(QSA_GIT_COMMIT "${QSA_GIT_COMMIT}-dirty")
    endif()
  endif()
endif()
configure_file(${INPUT} ${OUTPUT} @ONLY)
