// The report stream (core/report_stream.hpp).
#include "core/report_stream.hpp"

#include <unistd.h>

namespace gpubench {
namespace {
std::FILE* g_stream = nullptr;  // set once by protect_report_stream
}  // namespace

std::FILE* report_stream() { return g_stream != nullptr ? g_stream : stdout; }

bool protect_report_stream() {
  if (g_stream != nullptr) return true;
  std::fflush(stdout);
  const int saved = dup(STDOUT_FILENO);
  if (saved < 0) return false;
  std::FILE* stream = fdopen(saved, "w");
  if (stream == nullptr) {
    close(saved);
    return false;
  }
  if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    std::fclose(stream);
    return false;
  }
  g_stream = stream;
  return true;
}

}  // namespace gpubench
