// Empirical length histograms (read_empirical in workload/workload.hpp): CSV with header
// `length,count`, JSON [[length,count],...], or JSON {"lengths":[...],"counts":[...]}. Every bad row
// is reported (the first RowProblems::kMaxListed with their line or entry, the rest counted), one
// per line of the InputError's message.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "config/validator.hpp"
#include "core/errors.hpp"
#include "core/json_depth.hpp"
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

/// Bad rows of one file: the first kMaxListed are kept with their place ("path:7: …"), the rest
/// counted; throw_if_any() raises them all as one InputError, one problem per line.
class RowProblems {
 public:
  static constexpr size_t kMaxListed = 10;
  explicit RowProblems(std::string path) : path_(std::move(path)) {}
  /// Records the problems of the row at `where` ("path:line" or "path: entry i"); none: a good row.
  /// Returns true when the row is good.
  bool add(const std::string& where, const std::vector<std::string>& messages) {
    if (messages.empty()) return true;
    std::string joined;
    for (const auto& m : messages) joined += (joined.empty() ? "" : "; ") + m;
    if (++count_ <= kMaxListed) lines_.push_back(where + ": " + joined);
    return false;
  }
  /// Throws InputError listing every recorded problem (and "and N more") when there is any.
  void throw_if_any() const {
    if (count_ == 0) return;
    std::string msg;
    for (const auto& l : lines_) msg += (msg.empty() ? "" : "\n") + l;
    if (count_ > lines_.size())
      msg += fmt::format("\n{}: and {} more bad rows ({} in all)", path_, count_ - lines_.size(), count_);
    throw InputError(msg);
  }

 private:
  std::string path_;
  std::vector<std::string> lines_;
  size_t count_ = 0;
};

/// One (length, count) row and where it was read ("path:line" / "path: entry i").
struct Row {
  int64_t length;
  double count;
  std::string where;
};

/// Appends the problems of a parsed length and count (either may be absent: unparsable) to `out`.
void check_entry(std::optional<int64_t> length, std::optional<double> count, std::vector<std::string>& out) {
  if (length && *length < 1) out.push_back(fmt::format("length must be ≥ 1, got {}", *length));
  if (length && *length > config_detail::kInt32Max)
    out.push_back(fmt::format("length must be ≤ {}, got {}", config_detail::kInt32Max, *length));
  if (count && (!std::isfinite(*count) || *count < 0))
    out.push_back(fmt::format("count must be a finite number ≥ 0, got {}", config_detail::show_number(*count)));
}

/// Rejects duplicate lengths (each repeat with where it was first listed), then sorts by length and
/// rejects an empty or all-zero histogram.
std::vector<std::pair<int64_t, double>> finish(const std::string& path, RowProblems& problems, std::vector<Row> rows) {
  std::map<int64_t, std::string> first;
  for (const Row& r : rows) {
    const auto [it, fresh] = first.emplace(r.length, r.where);
    if (!fresh) problems.add(r.where, {fmt::format("length {} is listed twice (first at {})", r.length, it->second)});
  }
  problems.throw_if_any();
  if (rows.empty()) throw InputError(path + ": no (length, count) rows; expected at least one");
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.length < b.length; });
  std::vector<std::pair<int64_t, double>> out;
  double total = 0;
  for (const Row& r : rows) {
    out.emplace_back(r.length, r.count);
    total += r.count;
  }
  if (!(total > 0)) throw InputError(path + ": all counts are zero; expected some count > 0");
  return out;
}

std::vector<Row> read_csv(const std::string& path, const std::string& text, RowProblems& problems) {
  std::vector<Row> rows;
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
    if (!header_seen) {  // a wrong header stops the reading: every row after it would be misread
      if (cells.size() != 2 || cells[0] != "length" || cells[1] != "count")
        throw InputError(fmt::format("{}: expected the header `length,count`, got `{}`", where, printable(t)));
      header_seen = true;
      continue;
    }
    if (cells.size() != 2) {
      problems.add(where, {fmt::format("expected 2 cells `length,count`, got {}", cells.size())});
      continue;
    }
    std::vector<std::string> bad;
    std::optional<int64_t> length;
    std::optional<double> count;
    const auto& l = cells[0];
    const auto& c = cells[1];
    int64_t lv = 0;
    double cv = 0;
    if (auto r = std::from_chars(l.data(), l.data() + l.size(), lv);
        l.empty() || r.ec != std::errc() || r.ptr != l.data() + l.size())
      bad.push_back(fmt::format("length must be an integer, got '{}'", printable(l)));
    else
      length = lv;
    if (auto r = std::from_chars(c.data(), c.data() + c.size(), cv);
        c.empty() || r.ec != std::errc() || r.ptr != c.data() + c.size())
      bad.push_back(fmt::format("count must be a number, got '{}'", printable(c)));
    else
      count = cv;
    check_entry(length, count, bad);
    if (problems.add(where, bad)) rows.push_back({*length, *count, where});
  }
  return rows;
}

/// One [length, count] entry of a JSON histogram: appended to `rows`, or its problems recorded.
void json_entry(RowProblems& problems, const std::string& where, const nlohmann::json& len,
                const nlohmann::json& count, std::vector<Row>& rows) {
  std::vector<std::string> bad;
  std::string why;
  const auto l = config_detail::to_int64(len, why);
  if (!l) bad.push_back("length: " + why);
  why.clear();
  const auto c = config_detail::to_number(count, why);
  if (!c) bad.push_back("count: " + why);
  check_entry(l, c, bad);
  if (problems.add(where, bad)) rows.push_back({*l, *c, where});
}

std::vector<Row> read_json(const std::string& path, const std::string& text, RowProblems& problems) {
  nlohmann::json j;
  std::vector<std::string> duplicates;
  try {
    j = parse_json_bounded(text, &duplicates);
  } catch (const JsonTooDeep&) {
    throw InputError(path + ": " + json_too_deep_message("a length histogram"));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: invalid JSON: {}", path, printable(e.what(), 400)));  // quotes raw bytes
  }
  if (!duplicates.empty()) throw InputError(fmt::format("{}: {}: {}", path, duplicates.front(), kDuplicateKeyMessage));
  std::vector<Row> rows;
  if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) {
      const std::string where = fmt::format("{}: entry {}", path, i);
      if (!j[i].is_array() || j[i].size() != 2)
        problems.add(where, {"expected a [length, count] pair, got " + config_detail::show(j[i])});
      else
        json_entry(problems, where, j[i][0], j[i][1], rows);
    }
  } else if (j.is_object() && j.size() == 2 && j.contains("lengths") && j.contains("counts")) {
    const auto& ls = j["lengths"];
    const auto& cs = j["counts"];
    if (!ls.is_array() || !cs.is_array() || ls.size() != cs.size())
      throw InputError(path + ": \"lengths\" and \"counts\" must be arrays of the same size");
    for (size_t i = 0; i < ls.size(); ++i) json_entry(problems, fmt::format("{}: entry {}", path, i), ls[i], cs[i], rows);
  } else {
    std::string why;  // an object of the second form with a key too many or too few: name it
    if (j.is_object()) {
      std::vector<std::string> extra;
      for (const auto& [key, unused] : j.items())
        if (key != "lengths" && key != "counts") extra.push_back("\"" + key + "\"");
      if (!extra.empty())
        why = fmt::format(" (unknown key{} {}: the object holds \"lengths\" and \"counts\" only)",
                          extra.size() == 1 ? "" : "s", fmt::join(extra, ", "));
      else
        why = fmt::format(" (\"{}\" is missing)", j.contains("lengths") ? "counts" : "lengths");
    }
    throw InputError(path + ": expected [[length, count], ...] or {\"lengths\": [...], \"counts\": [...]}" + why);
  }
  return rows;
}
}  // namespace

std::vector<std::pair<int64_t, double>> read_empirical(const std::string& path) {
  std::string text;
  switch (read_text_file(path, kMaxInputFileBytes, text)) {
    case ReadStatus::kOk: break;
    case ReadStatus::kCannotOpen: {
      std::error_code ec;
      if (std::filesystem::is_directory(path, ec))
        throw InputError("'" + path + "' is a directory, expected an empirical length file (CSV or JSON)");
      throw InputError(path + ": cannot open the empirical length file (missing or unreadable)");
    }
    case ReadStatus::kTooLarge:
      throw InputError(fmt::format("{}: larger than {} MiB; expected a length histogram file", path,
                                   kMaxInputFileBytes >> 20));
  }
  // A UTF-8 byte-order mark (Excel's "CSV UTF-8", pandas' utf-8-sig) is no part of the header or the JSON.
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos)
    throw InputError(path + ": empty file; expected a CSV with header `length,count` or JSON");
  RowProblems problems(path);
  std::vector<Row> rows =
      text[first] == '[' || text[first] == '{' ? read_json(path, text, problems) : read_csv(path, text, problems);
  return finish(path, problems, std::move(rows));
}

}  // namespace gpubench
