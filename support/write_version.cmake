# Writes version.cpp from version.cpp.in at every build (support/CMakeLists.txt): the commit the
# tree is at, with "-dirty" when tracked files differ from it or new files are not ignored, so a
# binary never records a commit it was not built from. configure_file leaves an unchanged file
# untouched, so nothing recompiles or relinks when the version is the same.
# Inputs: SOURCE_DIR, PROJECT_VERSION, INPUT, OUTPUT.
execute_process(COMMAND git rev-parse --short=12 HEAD
  WORKING_DIRECTORY ${SOURCE_DIR} OUTPUT_VARIABLE INDUCTOR_FUZZ_GIT_REVISION
  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE found)
if(NOT found EQUAL 0 OR NOT INDUCTOR_FUZZ_GIT_REVISION)
  set(INDUCTOR_FUZZ_GIT_REVISION unknown)
else()
  execute_process(COMMAND git status --porcelain
    WORKING_DIRECTORY ${SOURCE_DIR} OUTPUT_VARIABLE changes
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(changes)
    string(APPEND INDUCTOR_FUZZ_GIT_REVISION "-dirty")
  endif()
endif()
configure_file(${INPUT} ${OUTPUT} @ONLY)
