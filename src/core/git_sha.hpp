#pragma once
// gpubench's git sha, for reports and --version. Defined in a source the build writes at every build
// (cmake/git_sha.cmake), so that an incremental rebuild after a commit or an edit names the code it compiled.

namespace gpubench::build_info {

/// Short git sha of the source tree when the binary was built: "-dirty" appended when tracked files differed from
/// HEAD, GPUBENCH_GIT_SHA in the environment (at build or configure time) instead when set, "unknown" outside a
/// checkout. Never null.
const char* git_sha();

}  // namespace gpubench::build_info
