# Writes the C++ source that holds gpubench's git sha (build_info::git_sha(), src/core/git_sha.hpp), at every build.
#   cmake -DSOURCE_DIR=<checkout> -DOUTPUT=<file.cpp> [-DOVERRIDE=<sha>] -P cmake/git_sha.cmake
# The sha is, first found: GPUBENCH_GIT_SHA in the build's environment; OVERRIDE (the same variable at configure
# time: it stays until the next configure, which scripts/device-before-after relies on); `git rev-parse --short=12
# HEAD` when SOURCE_DIR is the top of its own checkout, with "-dirty" appended when tracked files differ from HEAD or
# untracked files sit in the source folders the build globs; else "unknown". Run at build time, not configure time, so that a rebuild after a commit or an
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
  # Only SOURCE_DIR's own checkout: a tree unpacked inside another repository would otherwise name that one's commit.
  execute_process(COMMAND git rev-parse --show-toplevel
    WORKING_DIRECTORY ${SOURCE_DIR} OUTPUT_VARIABLE top OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  set(sha "")
  if(top)
    file(REAL_PATH "${top}" top)
    file(REAL_PATH "${SOURCE_DIR}" here)
    if(top STREQUAL here)
      execute_process(COMMAND git rev-parse --short=12 HEAD
        WORKING_DIRECTORY ${SOURCE_DIR} OUTPUT_VARIABLE sha OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    endif()
  endif()
  if(sha)
    # Tracked changes anywhere, and untracked files where the build globs its sources (a new .cpp not yet added is
    # compiled in); other untracked files (notes, outputs) do not count, as with `git describe --dirty`.
    execute_process(COMMAND git status --porcelain --untracked-files=no
      WORKING_DIRECTORY ${SOURCE_DIR} OUTPUT_VARIABLE changes OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    execute_process(COMMAND git status --porcelain --untracked-files=all -- src ops include cmake examples
      WORKING_DIRECTORY ${SOURCE_DIR} OUTPUT_VARIABLE sources OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(changes OR sources)
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
