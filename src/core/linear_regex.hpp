#pragma once
// Regular expressions over names from the user's traces (kernel names, NVTX payloads), which can run to tens of
// thousands of characters: a templated CUTLASS or CuTe kernel's demangled name does. libstdc++'s default std::regex
// executor is depth-first and recurses once per character it matches, so `Kernel<.*>` on a 30,000-character name
// overflowed the 8 MB stack (SIGSEGV). Its breadth-first executor (a Thompson NFA, libstdc++'s extension flag
// std::regex_constants::__polynomial) keeps the stack bounded by the pattern's size, whatever the text's length.
#include <regex>
#include <string>
#include <string_view>

namespace gpubench {

/// An ECMAScript std::regex `pattern` for std::regex_search on text of any length: with libstdc++, matched by the
/// breadth-first executor, whose stack depth does not grow with the text; elsewhere a plain std::regex. Throws
/// std::regex_error when `pattern` is not a valid ECMAScript regex, and, with libstdc++, when it uses a
/// back-reference (`\1`), which only the depth-first executor can match.
inline std::regex linear_regex(const std::string& pattern) {
#if defined(__GLIBCXX__)
  return std::regex(pattern, std::regex::ECMAScript | std::regex_constants::__polynomial);
#else
  return std::regex(pattern, std::regex::ECMAScript);
#endif
}

/// What is wrong with a pattern linear_regex refused, to follow the pattern in a message: "is not a valid regular
/// expression (`e`'s words)", except for a back-reference, where libstdc++ says "Unexpected back-reference in
/// polynomial mode." and this says why gpubench refuses it (docs/profile.md).
inline std::string regex_problem(const std::regex_error& e) {
  if (std::string_view(e.what()).find("back-reference") != std::string_view::npos)
    return "has a back-reference (\\1 …), which gpubench refuses: its matcher keeps the stack flat on names of any "
           "length, and only a recursive one can match a back-reference; write the pattern without it";
  return std::string("is not a valid regular expression (") + e.what() + ")";
}

}  // namespace gpubench
