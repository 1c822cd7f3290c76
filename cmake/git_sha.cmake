# Writes the C++ source that holds gpubench's git sha (build_info::git_sha(), src/core/git_sha.hpp), at every build.
#   cmake -DSOURCE_DIR=<checkout> -DOUTPUT=<file.cpp> [-DOVERRIDE=<sha>] -P cmake/git_sha.cmake
# The sha is, first found: GPUBENCH_GIT_SHA in the build's environment; OVERRIDE (the same variable at configure
# time); `git rev-parse --short=12 HEAD` in SOURCE_DIR with "-dirty" appended when tracked files differ from HEAD (as
# `git describe --dirty`); else "unknown". Run at build time, not configure time, so that a rebuild after a commit or an
# edit names the code it compiled. OUTPUT is rewritten only when its content changes, so an unchanged sha recompiles
# nothing.
if(NOT SOURCE_DIR OR NOT OUTPUT)
  message(FATAL_ERROR "git_sha.cmake: SOURCE_DIR and OUTPUT are required")
endif()
if(DEFINED ENV{GPUBENCH_GIT_SHA} AND NOT "$ENV{GPUBENCH_GIT_SHA}" STREQUAL "")
  set(sha "$ENV{GPUBENCH_GIT_SHA}")
elseif(OVERRIDE)
  set(sha "${OVERRIDE}")
else()
  execute_process(COMMAND git rev-parse --short=12 HEAD
    WORKING_DIRECTORY ${SOURCE_DIR} OUTPUT_VARIABLE sha OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(sha)
    execute_process(COMMAND git status --porcelain --untracked-files=no
      WORKING_DIRECTORY ${SOURCE_DIR} OUTPUT_VARIABLE changes OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(changes)
      string(APPEND sha "-dirty")
    endif()
  endif()
endif()
if(NOT sha)
  set(sha "unknown")
endif()
# A sha goes into a C string literal: keep only the characters a sha, a tag or "-dirty" use.
string(REGEX REPLACE "[^A-Za-z0-9._+-]" "_" sha "${sha}")
file(CONFIGURE OUTPUT ${OUTPUT} CONTENT "// Generated at build time by cmake/git_sha.cmake: do not edit.
#include \"core/git_sha.hpp\"

namespace gpubench::build_info {
const char* git_sha() { return \"${sha}\"; }
}  // namespace gpubench::build_info
" @ONLY)
