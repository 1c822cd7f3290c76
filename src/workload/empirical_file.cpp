// Empirical length histograms (read_empirical in workload/workload.hpp): CSV with header
// `length,count`, JSON [[length,count],...], or JSON {"lengths":[...],"counts":[...]}.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

#include <fmt/format.h>

#include "config/validator.hpp"
#include "core/errors.hpp"
#include "core/text_file.hpp"
#include "workload/workload.hpp"

namespace gpubench {
namespace {

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

/// Checks one (length, count) entry; `where` is "path:line" or "path: entry i".
void check_entry(const std::string& where, int64_t length, double count) {
  if (length < 1)
    throw InputError(fmt::format("{}: length must be ≥ 1, got {}", where, length));
  if (length > config_detail::kInt32Max)
    throw InputError(fmt::format("{}: length must be ≤ {}, got {}", where,
                                 config_detail::kInt32Max, length));
  if (!std::isfinite(count) || count < 0)
    throw InputError(fmt::format("{}: count must be a finite number ≥ 0, got {}", where,
                                 config_detail::show_number(count)));
}

/// Sorts by length, rejects duplicates and an all-zero histogram.
std::vector<std::pair<int64_t, double>> finish(const std::string& path,
                                               std::vector<std::pair<int64_t, double>> rows) {
  if (rows.empty()) throw InputError(path + ": no (length, count) rows; expected at least one");
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 1; i < rows.size(); ++i)
    if (rows[i].first == rows[i - 1].first)
      throw InputError(fmt::format("{}: length {} is listed twice", path, rows[i].first));
  double total = 0;
  for (const auto& r : rows) total += r.second;
  if (!(total > 0)) throw InputError(path + ": all counts are zero; expected some count > 0");
  return rows;
}

std::vector<std::pair<int64_t, double>> read_csv(const std::string& path, const std::string& text) {
  std::vector<std::pair<int64_t, double>> rows;
  std::istringstream in(text);
  std::string line;
  bool header_seen = false;
  for (int line_no = 1; std::getline(in, line); ++line_no) {
    const std::string where = fmt::format("{}:{}", path, line_no);
    std::string t = trim(line);
    if (t.empty()) continue;
    std::vector<std::string> cells;
    for (size_t start = 0;;) {
      auto comma = t.find(',', start);
      cells.push_back(trim(std::string_view(t).substr(start, comma - start)));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (!header_seen) {
      if (cells.size() != 2 || cells[0] != "length" || cells[1] != "count")
        throw InputError(fmt::format("{}: expected the header `length,count`, got `{}`", where, t));
      header_seen = true;
      continue;
    }
    if (cells.size() != 2)
      throw InputError(fmt::format("{}: expected 2 cells `length,count`, got {}", where, cells.size()));
    int64_t length = 0;
    double count = 0;
    const auto& l = cells[0];
    const auto& c = cells[1];
    if (auto r = std::from_chars(l.data(), l.data() + l.size(), length);
        l.empty() || r.ec != std::errc() || r.ptr != l.data() + l.size())
      throw InputError(fmt::format("{}: length must be an integer, got '{}'", where, l));
    if (auto r = std::from_chars(c.data(), c.data() + c.size(), count);
        c.empty() || r.ec != std::errc() || r.ptr != c.data() + c.size())
      throw InputError(fmt::format("{}: count must be a number, got '{}'", where, c));
    check_entry(where, length, count);
    rows.emplace_back(length, count);
  }
  return rows;
}

std::pair<int64_t, double> json_entry(const std::string& where, const nlohmann::json& len,
                                      const nlohmann::json& count) {
  std::string why;
  auto l = config_detail::to_int64(len, why);
  if (!l) throw InputError(fmt::format("{}: length: {}", where, why));
  auto c = config_detail::to_number(count, why);
  if (!c) throw InputError(fmt::format("{}: count: {}", where, why));
  check_entry(where, *l, *c);
  return {*l, *c};
}

std::vector<std::pair<int64_t, double>> read_json(const std::string& path, const std::string& text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: invalid JSON: {}", path, e.what()));
  }
  std::vector<std::pair<int64_t, double>> rows;
  if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) {
      const std::string where = fmt::format("{}: entry {}", path, i);
      if (!j[i].is_array() || j[i].size() != 2)
        throw InputError(where + ": expected a [length, count] pair, got " + config_detail::show(j[i]));
      rows.push_back(json_entry(where, j[i][0], j[i][1]));
    }
  } else if (j.is_object() && j.size() == 2 && j.contains("lengths") && j.contains("counts")) {
    const auto& ls = j["lengths"];
    const auto& cs = j["counts"];
    if (!ls.is_array() || !cs.is_array() || ls.size() != cs.size())
      throw InputError(path + ": \"lengths\" and \"counts\" must be arrays of the same size");
    for (size_t i = 0; i < ls.size(); ++i)
      rows.push_back(json_entry(fmt::format("{}: entry {}", path, i), ls[i], cs[i]));
  } else {
    throw InputError(path + ": expected [[length, count], ...] or {\"lengths\": [...], \"counts\": [...]}");
  }
  return rows;
}
}  // namespace

std::vector<std::pair<int64_t, double>> read_empirical(const std::string& path) {
  std::string text;
  switch (read_text_file(path, kMaxInputFileBytes, text)) {
    case ReadStatus::kOk: break;
    case ReadStatus::kCannotOpen:
      throw InputError(path + ": cannot open the empirical length file (missing or unreadable)");
    case ReadStatus::kTooLarge:
      throw InputError(fmt::format("{}: larger than {} MiB; expected a length histogram file", path,
                                   kMaxInputFileBytes >> 20));
  }
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos)
    throw InputError(path + ": empty file; expected a CSV with header `length,count` or JSON");
  if (text[first] == '[' || text[first] == '{') return finish(path, read_json(path, text));
  return finish(path, read_csv(path, text));
}

}  // namespace gpubench
