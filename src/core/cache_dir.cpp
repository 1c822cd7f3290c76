// gpubench_cache_dir (core/cache_dir.hpp).
#include "core/cache_dir.hpp"

#include <cstdlib>

namespace gpubench {

std::string gpubench_cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/gpubench";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/gpubench";
  return "./.gpubench";
}

}  // namespace gpubench
