// Typed readers and the issue collector of the config validator (config/validator.hpp).
#include "config/validator.hpp"

#include <cmath>

#include <fmt/format.h>

namespace gpubench::config_detail {

std::string type_name(const nlohmann::json& v) {
  if (v.is_number_integer()) return "integer";  // also true for unsigned
  if (v.is_number_float()) return "number";
  return v.type_name();  // string | boolean | array | object | null
}

std::string show_number(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return fmt::format("{}", x);  // shortest round-trip form: 0.5, -1, 1e+20
}

std::string show(const nlohmann::json& v) {
  std::string s;
  if (v.is_number_float()) {
    s = show_number(v.get<double>());
  } else {
    s = v.dump();
  }
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

std::string escape_token(std::string_view key) {
  std::string out;
  for (char ch : key) {
    if (ch == '~') out += "~0";
    else if (ch == '/') out += "~1";
    else out += ch;
  }
  return out;
}

std::string child(const std::string& base, std::string_view key) {
  return base + "/" + escape_token(key);
}

std::string child(const std::string& base, size_t index) {
  return base + "/" + std::to_string(index);
}

std::optional<int64_t> to_int64(const nlohmann::json& v, std::string& why) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (v.is_number_unsigned()) {
    auto u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(kMax)) {
      why = fmt::format("must be an integer ≤ {}, got {}", kMax, u);
      return std::nullopt;
    }
    return static_cast<int64_t>(u);
  }
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (!std::isfinite(d)) {
      why = "expected an integer, got " + show_number(d);
      return std::nullopt;
    }
    if (d != std::floor(d)) {
      why = "expected an integer, got " + show_number(d);
      return std::nullopt;
    }
    // 2^63 is exactly representable; every double below it in magnitude converts exactly.
    if (d >= 9223372036854775808.0 || d < -9223372036854775808.0) {
      why = fmt::format("must be an integer ≤ {}, got {}", kMax, show_number(d));
      return std::nullopt;
    }
    return static_cast<int64_t>(d);
  }
  why = "expected an integer, got " + type_name(v);
  return std::nullopt;
}

std::optional<double> to_number(const nlohmann::json& v, std::string& why) {
  if (!v.is_number()) {
    why = "expected a number, got " + type_name(v);
    return std::nullopt;
  }
  double d = v.get<double>();
  if (!std::isfinite(d)) {
    why = "expected a finite number, got " + show_number(d);
    return std::nullopt;
  }
  return d;
}

std::string Range::violation(double x) const {
  bool below = lo && (lo_open ? !(x > *lo) : !(x >= *lo));
  bool over = hi && (hi_open ? !(x < *hi) : !(x <= *hi));
  if (!below && !over) return {};
  // Name only the violated bound: "must be ≥ 1, got 0" reads better than the whole interval.
  if (below) return fmt::format("must be {} {}, got {}", lo_open ? ">" : "≥", show_number(*lo), show_number(x));
  // An int64 field's bound, INT64_MAX, is 2^63 as a double: shown as the integer it stands for, not 9.22e+18.
  const std::string hi_text = *hi >= 9223372036854775807.0 ? std::string("9223372036854775807") : show_number(*hi);
  return fmt::format("must be {} {}, got {}", hi_open ? "<" : "≤", hi_text, show_number(x));
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

void Validator::add(std::string pointer, std::string message) {
  issues_.push_back({std::move(pointer), std::move(message)});
}

bool Validator::object(const nlohmann::json& j, const std::string& ptr,
                       std::initializer_list<std::string_view> keys) {
  return object(j, ptr, std::vector<std::string>(keys.begin(), keys.end()));
}

bool Validator::object(const nlohmann::json& j, const std::string& ptr, const std::vector<std::string>& known) {
  if (!j.is_object()) {
    add(ptr, "expected an object, got " + type_name(j));
    return false;
  }
  for (const auto& [key, value] : j.items()) {
    bool ok = false;
    for (const auto& k : known) ok = ok || k == key;
    if (ok) continue;
    std::string guess = did_you_mean(key, known);
    add(child(ptr, key), guess.empty() ? "unknown key; expected one of: " + join(known)
                                       : "unknown key (did you mean '" + guess + "'?)");
  }
  return true;
}

bool Validator::integer(const nlohmann::json& obj, const std::string& ptr, const char* key,
                        int64_t& out, Range range, bool required) {
  auto it = obj.find(key);
  const std::string p = child(ptr, key);
  if (it == obj.end()) {
    if (required) add(p, "required, expected an integer");
    return !required;
  }
  std::string why;
  auto x = to_int64(*it, why);
  if (!x) {
    // A whole number beyond int64 (1e20): the field's own range names its real limit, not int64's.
    const double d = it->is_number() ? it->get<double>() : 0.0;
    std::string bad = it->is_number() && std::isfinite(d) && d == std::floor(d) ? range.violation(d) : "";
    add(p, bad.empty() ? why : bad);
    return false;
  }
  if (auto bad = range.violation(static_cast<double>(*x)); !bad.empty()) {
    // Print the integer exactly (a double would round values beyond 2^53).
    if (auto pos = bad.rfind(", got "); pos != std::string::npos) bad = bad.substr(0, pos);
    add(p, fmt::format("{}, got {}", bad, *x));
    return false;
  }
  out = *x;
  return true;
}

bool Validator::integer(const nlohmann::json& obj, const std::string& ptr, const char* key,
                        int& out, Range range) {
  if (!range.hi) range.hi = static_cast<double>(kInt32Max);
  int64_t x = out;
  if (!integer(obj, ptr, key, x, range)) return false;
  out = static_cast<int>(x);
  return true;
}

bool Validator::seed(const nlohmann::json& obj, const std::string& ptr, const char* key,
                     uint64_t& out) {
  int64_t x = static_cast<int64_t>(out);
  if (!integer(obj, ptr, key, x, Range::at_least(0))) return false;
  out = static_cast<uint64_t>(x);
  return true;
}

bool Validator::number(const nlohmann::json& obj, const std::string& ptr, const char* key,
                       double& out, Range range, bool required) {
  auto it = obj.find(key);
  const std::string p = child(ptr, key);
  if (it == obj.end()) {
    if (required) add(p, "required, expected a number");
    return !required;
  }
  std::string why;
  auto x = to_number(*it, why);
  if (!x) {
    add(p, why);
    return false;
  }
  if (auto bad = range.violation(*x); !bad.empty()) {
    add(p, bad);
    return false;
  }
  out = *x;
  return true;
}

bool Validator::boolean(const nlohmann::json& obj, const std::string& ptr, const char* key,
                        bool& out) {
  auto it = obj.find(key);
  if (it == obj.end()) return true;
  if (!it->is_boolean()) {
    add(child(ptr, key), "expected a boolean, got " + type_name(*it));
    return false;
  }
  out = it->get<bool>();
  return true;
}

bool Validator::string(const nlohmann::json& obj, const std::string& ptr, const char* key,
                       std::string& out, const std::vector<std::string>& one_of, bool required) {
  auto it = obj.find(key);
  const std::string p = child(ptr, key);
  if (it == obj.end()) {
    if (required) add(p, "required, expected a string");
    return !required;
  }
  if (!it->is_string()) {
    add(p, "expected a string, got " + type_name(*it));
    return false;
  }
  auto s = it->get<std::string>();
  if (!one_of.empty()) {
    bool ok = false;
    for (const auto& o : one_of) ok = ok || o == s;
    if (!ok) {
      std::string guess = did_you_mean(s, one_of);
      add(p, fmt::format("must be one of {}, got '{}'{}", join(one_of, " | "), s,
                         guess.empty() ? "" : " (did you mean '" + guess + "'?)"));
      return false;
    }
  }
  out = std::move(s);
  return true;
}

}  // namespace gpubench::config_detail
