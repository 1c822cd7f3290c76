// ConfigError, load_config, parse_config_text, default_config and did_you_mean (config/parse.hpp).
#include <algorithm>
#include <cctype>
#include <filesystem>

#include <fmt/format.h>

#include "config/parse.hpp"
#include "core/json_depth.hpp"
#include "core/text_file.hpp"
#include "gpubench/build_info.hpp"

namespace gpubench {
namespace {

/// "pointer: message" lines (the message alone when the pointer is the whole document).
std::string format_issues(const std::vector<ConfigIssue>& issues) {
  std::string out;
  for (const auto& i : issues) {
    if (!out.empty()) out += '\n';
    out += i.pointer.empty() ? i.message : i.pointer + ": " + i.message;
  }
  return out;
}

/// 1-based line and column of byte offset `pos` (0-based) of `text`.
std::pair<size_t, size_t> line_column(const std::string& text, size_t pos) {
  pos = std::min(pos, text.size());
  size_t line = 1, col = 1;
  for (size_t i = 0; i < pos; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

/// The reason part of a nlohmann exception message ("syntax error while parsing value - …").
std::string reason(const std::string& what) {
  for (const char* marker : {"syntax error", "number overflow"})
    if (auto p = what.find(marker); p != std::string::npos) return what.substr(p);
  auto p = what.find("] ");
  return p == std::string::npos ? what : what.substr(p + 2);
}

/// Parses `text` (named `source` in errors) into JSON; throws ConfigError with line and column.
/// Duplicate keys are returned in `duplicates` (reported with the validation problems).
nlohmann::json parse_text(const std::string& text, const std::string& source,
                          std::vector<ConfigIssue>& duplicates) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw ConfigError(source, {{"", "empty file, expected a JSON object"}});
  try {
    std::vector<std::string> pointers;
    auto j = parse_json_bounded(text, &pointers);
    for (const auto& p : pointers) duplicates.push_back({p, kDuplicateKeyMessage});
    return j;
  } catch (const JsonTooDeep&) {
    throw ConfigError(source, {{"", json_too_deep_message("a gpubench config")}});
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is the 1-based index of the last character read: the offending one.
    auto [line, col] = line_column(text, e.byte == 0 ? 0 : e.byte - 1);
    throw ConfigError(source, {{"", fmt::format("invalid JSON at line {}, column {}: {}", line, col,
                                                reason(e.what()))}});
  } catch (const nlohmann::json::exception& e) {
    // Out-of-range numbers (e.g. 1e400) carry no position: locate the quoted token instead.
    std::string msg = e.what();
    std::string where;
    if (auto a = msg.find('\''), b = msg.rfind('\''); a != std::string::npos && b > a) {
      if (auto pos = text.find(msg.substr(a + 1, b - a - 1)); pos != std::string::npos) {
        auto [line, col] = line_column(text, pos);
        where = fmt::format(" at line {}, column {}", line, col);
      }
    }
    throw ConfigError(source, {{"", fmt::format("invalid JSON{}: {}", where, reason(msg))}});
  }
}
/// parse_config, with the duplicate-key problems of the text added to its own and the problems an
/// override caused marked with it (mark_override_issues).
Config parse_with(const nlohmann::json& j, const ConfigContext& ctx, const std::vector<ConfigIssue>& duplicates,
                  const std::vector<ConfigOverride>& overrides = {}) {
  try {
    Config c = parse_config(j, ctx);
    if (duplicates.empty()) return c;
  } catch (const ConfigError& e) {
    if (duplicates.empty() && overrides.empty()) throw;
    std::vector<ConfigIssue> all = duplicates;
    all.insert(all.end(), e.issues.begin(), e.issues.end());
    throw ConfigError(ctx.source, mark_override_issues(std::move(all), overrides, &j));
  }
  throw ConfigError(ctx.source, duplicates);
}
}  // namespace

ConfigError::ConfigError(std::string source_, std::vector<ConfigIssue> issues_)
    : InputError(format_issues(issues_)), source(std::move(source_)), issues(std::move(issues_)) {}

Config load_config(const std::string& path, ConfigContext ctx, const std::vector<ConfigOverride>& overrides,
                   nlohmann::json* raw) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw ConfigError(path, {{"", "'" + path + "' is a directory, expected a JSON config file"}});
  std::string text;
  switch (read_text_file(path, kMaxInputFileBytes, text)) {
    case ReadStatus::kOk: break;
    case ReadStatus::kCannotOpen:
      throw ConfigError(path, {{"", "cannot open config file '" + path + "'"}});
    case ReadStatus::kTooLarge:
      throw ConfigError(path, {{"", fmt::format("'{}' is larger than {} MiB, expected a JSON config file",
                                                path, kMaxInputFileBytes >> 20)}});
  }
  if (text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f && static_cast<unsigned char>(text[1]) == 0x8b)
    throw ConfigError(path, {{"", "'" + path + "' is gzip-compressed; a config is plain JSON (a gzipped gpubench "
                                  "report is not a config: give the config it ran)"}});
  const auto parent = std::filesystem::path(path).parent_path();
  ctx.base_dir = parent.empty() ? "." : parent.string();
  ctx.source = path;
  std::vector<ConfigIssue> duplicates;
  nlohmann::json j = parse_text(text, ctx.source, duplicates);
  text = std::string();  // the document is parsed: free the text before validation
  // A report where a config belongs (its /cases and /config_hash): one problem that says so, not a key per field.
  if (j.is_object() && j.contains("cases") && j.contains("config_hash"))
    throw ConfigError(path, {{"", "'" + path + "' is a gpubench report, not a config; give the config it ran (the "
                                  "report holds it, resolved, under /config)"}});
  apply_config_overrides(j, overrides, ctx.source);
  if (raw) *raw = j;
  return parse_with(j, ctx, duplicates, overrides);
}

Config parse_config_text(const std::string& text, const ConfigContext& ctx) {
  std::vector<ConfigIssue> duplicates;
  const nlohmann::json j = parse_text(text, ctx.source, duplicates);
  return parse_with(j, ctx, duplicates);
}

Config default_config(ConfigContext ctx, const std::vector<ConfigOverride>& overrides) {
  ctx.source = "<default>";
  std::vector<ConfigIssue> duplicates;
  nlohmann::json j = parse_text(build_info::kDefaultConfigJson, ctx.source, duplicates);
  apply_config_overrides(j, overrides, ctx.source);
  return parse_with(j, ctx, duplicates, overrides);
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);  // Levenshtein distance with one rolling row
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  const auto lower = [](std::string t) {
    for (char& ch : t) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return t;
  };
  // The same word in another case first ("n" → "N", not the equally distant "M").
  for (const auto& c : candidates)
    if (lower(c) == lower(word)) return c;
  // Then the one candidate the word begins ("h100" → "h100_sxm", not the nearer "h200"), from 3 characters on.
  if (word.size() >= 3) {
    std::string only;
    size_t n = 0;
    for (const auto& c : candidates) {
      if (lower(c).rfind(lower(word), 0) != 0) continue;
      ++n;
      only = c;
    }
    if (n == 1) return only;
  }
  const size_t limit = std::max<size_t>(2, word.size() / 3);
  std::string best;
  size_t best_d = limit + 1;
  for (const auto& c : candidates) {
    size_t d = edit_distance(word, c);
    if (d < best_d && d < word.size()) {  // a guess keeps some of the word: "Q" is no typo of "M"
      best_d = d;
      best = c;
    }
  }
  return best;
}

}  // namespace gpubench
