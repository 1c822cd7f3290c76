// ConfigError, load_config, default_config and did_you_mean (config/parse.hpp).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "config/parse.hpp"
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
nlohmann::json parse_text(const std::string& text, const std::string& source) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw ConfigError(source, {{"", "empty file, expected a JSON object"}});
  try {
    return nlohmann::json::parse(text);
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
}  // namespace

ConfigError::ConfigError(std::string source_, std::vector<ConfigIssue> issues_)
    : InputError(format_issues(issues_)), source(std::move(source_)), issues(std::move(issues_)) {}

Config load_config(const std::string& path, ConfigContext ctx) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw ConfigError(path, {{"", "cannot open config file '" + path + "'"}});
  std::stringstream buf;
  buf << f.rdbuf();
  const auto parent = std::filesystem::path(path).parent_path();
  ctx.base_dir = parent.empty() ? "." : parent.string();
  ctx.source = path;
  return parse_config(parse_text(buf.str(), path), ctx);
}

Config default_config(ConfigContext ctx) {
  ctx.source = "<default>";
  return parse_config(parse_text(build_info::kDefaultConfigJson, ctx.source), ctx);
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  // Levenshtein distance with one rolling row.
  auto distance = [](const std::string& a, const std::string& b) {
    std::vector<size_t> row(b.size() + 1);
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
  };
  const size_t limit = std::max<size_t>(2, word.size() / 3);
  std::string best;
  size_t best_d = limit + 1;
  for (const auto& c : candidates) {
    size_t d = distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

}  // namespace gpubench
