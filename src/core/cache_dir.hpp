#pragma once
// Where gpubench keeps what it learns about a machine between runs (calibrated ceilings, per-shape choices).
#include <string>

namespace gpubench {

/// The user's gpubench cache folder, without a trailing slash: $XDG_CACHE_HOME/gpubench, else $HOME/.cache/gpubench,
/// else ./.gpubench (the XDG Base Directory Specification's cache rule). Not created here.
std::string gpubench_cache_dir();

}  // namespace gpubench
