#pragma once
// Small helpers shared by the CUPTI profiler code (metrics.cpp: the host-side metric catalog,
// metrics_profiler.cpp: the range profiler): parameter structs and error text.
#include <cupti.h>

#include <cstddef>
#include <string>

#include <fmt/format.h>

namespace gpubench::measure {

/// A zeroed CUPTI parameter struct with its structSize set (the CUPTI_PROFILER_STRUCT_SIZE convention of
/// cupti_profiler_target.h / cupti_profiler_host.h: pass the struct's `<Name>_STRUCT_SIZE`).
template <class T>
T cupti_params(size_t struct_size) {
  T p{};
  p.structSize = struct_size;
  return p;
}

/// CUPTI's text for `r` (cuptiGetResultString), or "CUPTI error N" when it has none.
inline std::string cupti_text(CUptiResult r) {
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  return s ? s : fmt::format("CUPTI error {}", static_cast<int>(r));
}

}  // namespace gpubench::measure
