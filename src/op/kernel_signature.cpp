// The kernel signature of a kernel-file step (op/kernel_file.hpp ParamType, docs/kernel-files.md): Triton's
// spelling of parameter types ("*fp16, i32"), parsed and sized.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "core/text_file.hpp"
#include "op/kernel_file.hpp"

namespace gpubench::op {
namespace {

/// Triton's scalar type names and their sizes [bytes].
const std::vector<std::pair<std::string, int64_t>>& scalar_types() {
  static const std::vector<std::pair<std::string, int64_t>> t = {
      {"i1", 1},  {"i8", 1},  {"i16", 2}, {"i32", 4},  {"i64", 8},  {"u8", 1},   {"u16", 2},
      {"u32", 4}, {"u64", 8}, {"fp16", 2}, {"bf16", 2}, {"fp32", 4}, {"fp64", 8}};
  return t;
}

std::string trim(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t\n\r");
  if (b == std::string_view::npos) return "";
  const size_t e = s.find_last_not_of(" \t\n\r");
  return std::string(s.substr(b, e - b + 1));
}

}  // namespace

int64_t ParamType::bytes() const {
  if (pointer) return 8;
  for (const auto& [n, b] : scalar_types())
    if (n == elem) return b;
  return 0;
}

bool ParamType::integer() const { return !pointer && (elem[0] == 'i' || elem[0] == 'u'); }

std::string ParamType::text() const { return (pointer ? "*" : "") + elem; }

std::vector<ParamType> parse_signature(std::string_view text) {
  std::vector<ParamType> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string item = trim(text.substr(start, comma - start));
    start = comma + 1;
    if (item.empty()) {
      if (comma == text.size() && out.empty()) break;
      throw InputError(fmt::format("'{}': an empty item; write types separated by commas, e.g. \"*fp16, i32\"",
                                   std::string(text)));
    }
    ParamType t;
    t.pointer = item[0] == '*';
    t.elem = trim(std::string_view(item).substr(t.pointer ? 1 : 0));
    bool ok = std::any_of(scalar_types().begin(), scalar_types().end(), [&](const auto& s) { return s.first == t.elem; });
    if (t.pointer && (t.elem == "void" || t.elem == "fp8e4nv" || t.elem == "fp8e5")) ok = true;
    if (!ok)
      throw InputError(fmt::format("'{}' is not a signature type; use *T for a pointer and T for a scalar, T one of "
                                   "i1 i8 i16 i32 i64 u8 u16 u32 u64 fp16 bf16 fp32 fp64 (pointers also fp8e4nv, "
                                   "fp8e5, void)", printable(item, 40)));
    out.push_back(t);
    if (comma == text.size()) break;
  }
  if (out.empty()) throw InputError("an empty signature; write the kernel's parameter types, e.g. \"*fp16, i32\"");
  return out;
}

}  // namespace gpubench::op
