// Step option schemas (config/step_schema.hpp): value checks, defaults, the JSON form and the docs table.
#include "config/step_schema.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cctype>

#include "config/validator.hpp"
#include "core/errors.hpp"

namespace gpubench::config_detail {

using json = nlohmann::json;

std::string_view to_string(OptionType type) {
  switch (type) {
    case OptionType::kBool: return "boolean";
    case OptionType::kInteger: return "integer";
    case OptionType::kString: return "string";
    case OptionType::kMixed: return "mixed";
  }
  return "?";
}

namespace {

std::optional<OptionType> parse_option_type(std::string_view s) {
  for (OptionType t : {OptionType::kBool, OptionType::kInteger, OptionType::kString, OptionType::kMixed})
    if (to_string(t) == s) return t;
  return std::nullopt;
}

/// "a", "a or b", "a, b or c".
std::string or_list(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += i + 1 == items.size() ? " or " : ", ";
    out += items[i];
  }
  return out;
}

const json& null_json() {
  static const json n;
  return n;
}

}  // namespace

std::string OptionSchema::expected() const {
  if (range) return fmt::format("an integer {} … {}", range->first, range->second);
  std::vector<std::string> shown;
  for (const json& v : values) shown.push_back(v.dump());
  return or_list(shown);
}

std::string OptionSchema::value_problem(const json& value) const {
  if (range) {
    // A whole number in range: 2 or 2.0, as a listed value matches 64.0 (values below).
    const auto [lo, hi] = *range;
    bool ok = value.is_number_integer();
    if (ok && value.is_number_unsigned()) ok = value.get<uint64_t>() <= static_cast<uint64_t>(hi);
    else if (ok) ok = value.get<int64_t>() >= lo && value.get<int64_t>() <= hi;
    else if (value.is_number_float()) {
      const double d = value.get<double>();
      ok = std::floor(d) == d && d >= static_cast<double>(lo) && d <= static_cast<double>(hi);
    }
    return ok ? std::string() : fmt::format("must be {}, got {}", expected(), show(value));
  }
  for (const json& v : values)
    if (value == v) return {};  // nlohmann compares numbers by value: 64.0 == 64, true != 1
  return fmt::format("must be {}, got {}", expected(), show(value));
}

std::string OptionSchema::default_text() const { return default_value.is_null() ? default_doc : default_value.dump(); }

const OptionSchema* StepSchema::find(std::string_view key) const {
  for (const OptionSchema& o : options)
    if (o.name == key) return &o;
  return nullptr;
}

std::vector<std::string> StepSchema::keys() const {
  std::vector<std::string> out;
  for (const OptionSchema& o : options) out.push_back(o.name);
  return out;
}

json StepSchema::to_json() const {
  json j = {{"name", name}, {"precisions", json::array()}, {"test_only", test_only}, {"options", json::array()},
            {"constraints", constraint_docs}};
  for (Precision p : precisions) j["precisions"].push_back(std::string(gpubench::to_string(p)));
  for (const OptionSchema& o : options) {
    json oj = {{"name", o.name}, {"type", std::string(to_string(o.type))}};
    if (o.range) {
      oj["min"] = o.range->first;
      oj["max"] = o.range->second;
    } else {
      oj["values"] = o.values;
    }
    oj["default"] = o.default_value;
    if (o.default_value.is_null()) oj["default_doc"] = o.default_doc;
    oj["doc"] = o.doc;
    j["options"].push_back(std::move(oj));
  }
  return j;
}

namespace {

/// The member `key` of `j` as T; throws InputError naming `where`/`key` when missing or of another type.
template <class T>
T member(const json& j, const std::string& where, const char* key) {
  const auto it = j.find(key);
  if (it == j.end()) throw InputError(fmt::format("step schema: {}{} is missing", where, key));
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    throw InputError(fmt::format("step schema: {}{} has the wrong type ({})", where, key, type_name(*it)));
  }
}

/// Throws InputError naming `where` and the first key of `j` not in `accepted` (a typo such as "dflt" would otherwise
/// be ignored and its option left without a default).
void refuse_unknown_keys(const json& j, const std::string& where, std::initializer_list<const char*> accepted) {
  for (const auto& [key, value] : j.items()) {
    bool known = false;
    for (const char* a : accepted) known = known || key == a;
    if (known) continue;
    std::string list;
    for (const char* a : accepted) list += (list.empty() ? "" : ", ") + std::string(a);
    throw InputError(fmt::format("step schema: {}{} is not a schema key; accepted: {}", where, key, list));
  }
}

}  // namespace

StepSchema StepSchema::from_json(const json& j) {
  if (!j.is_object()) throw InputError("step schema: expected an object, got " + type_name(j));
  refuse_unknown_keys(j, "", {"name", "precisions", "test_only", "constraints", "options"});
  StepSchema s;
  s.name = member<std::string>(j, "", "name");
  for (const auto& p : member<std::vector<std::string>>(j, "", "precisions")) {
    const auto precision = parse_precision(p);
    if (!precision) throw InputError("step schema: precisions has an unknown precision \"" + p + "\"");
    s.precisions.push_back(*precision);
  }
  s.test_only = j.contains("test_only") ? member<bool>(j, "", "test_only") : false;
  if (j.contains("constraints")) s.constraint_docs = member<std::vector<std::string>>(j, "", "constraints");
  const json options = member<json>(j, "", "options");
  if (!options.is_array()) throw InputError("step schema: options must be a list, got " + type_name(options));
  for (size_t i = 0; i < options.size(); ++i) {
    const json& oj = options[i];
    const std::string where = fmt::format("options/{}/", i);
    if (!oj.is_object()) throw InputError(fmt::format("step schema: options/{} must be an object", i));
    refuse_unknown_keys(oj, where, {"name", "type", "min", "max", "values", "default", "default_doc", "doc"});
    OptionSchema o;
    o.name = member<std::string>(oj, where, "name");
    const auto type = parse_option_type(member<std::string>(oj, where, "type"));
    if (!type)
      throw InputError(fmt::format("step schema: {}type must be boolean, integer, string or mixed", where));
    o.type = *type;
    // Option names are config keys (/variants/i/options/NAME): an identifier, once per step.
    const bool identifier = !o.name.empty() && !std::isdigit(static_cast<unsigned char>(o.name[0])) &&
                            std::all_of(o.name.begin(), o.name.end(), [](char ch) {
                              return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
                            });
    if (!identifier)
      throw InputError(fmt::format("step schema: {}name \"{}\" is not an option name (letters, digits and '_')", where,
                                   o.name));
    if (s.find(o.name) != nullptr)
      throw InputError(fmt::format("step schema: {}name \"{}\" is declared twice", where, o.name));
    if (oj.contains("min") || oj.contains("max")) {
      o.range = std::make_pair(member<int64_t>(oj, where, "min"), member<int64_t>(oj, where, "max"));
      if (o.type != OptionType::kInteger)
        throw InputError(fmt::format("step schema: {}min/max need type integer", where));
      if (o.range->first > o.range->second)
        throw InputError(fmt::format("step schema: {}min {} is above max {}", where, o.range->first,
                                     o.range->second));
    } else {
      o.values = member<std::vector<json>>(oj, where, "values");
      if (o.values.empty()) throw InputError(fmt::format("step schema: {}values is empty; list the accepted values", where));
      for (size_t k = 0; k < o.values.size(); ++k) {
        const json& v = o.values[k];
        const bool fits = o.type == OptionType::kMixed || (o.type == OptionType::kBool && v.is_boolean()) ||
                          (o.type == OptionType::kInteger && v.is_number_integer()) ||
                          (o.type == OptionType::kString && v.is_string());
        if (!fits)
          throw InputError(fmt::format("step schema: {}values/{} is {}, not of the option's type {}", where, k,
                                       v.dump(), to_string(o.type)));
      }
    }
    o.default_value = oj.contains("default") ? oj.at("default") : json();
    if (oj.contains("default_doc")) o.default_doc = member<std::string>(oj, where, "default_doc");
    o.doc = member<std::string>(oj, where, "doc");
    if (o.default_value.is_null() && o.default_doc.empty())  // `list` would print "(default: )"
      throw InputError(fmt::format("step schema: {}default is null or absent (the step chooses) and there is no "
                                   "default_doc; give a default value, or default_doc saying what the step chooses",
                                   where));
    if (!o.default_value.is_null())
      if (std::string why = o.value_problem(o.default_value); !why.empty())
        throw InputError(fmt::format("step schema: {}default {}", where, why));
    s.options.push_back(std::move(o));
  }
  return s;
}

StepOptions::StepOptions(const StepSchema& schema, json given)
    : schema_(&schema), given_(given.is_object() ? std::move(given) : json::object()) {}

StepOptions StepOptions::resolve(const StepSchema& schema, const json& given) {
  if (!given.is_null() && !given.is_object())
    throw InputError(fmt::format("{}: options must be an object, got {}", schema.name, type_name(given)));
  if (given.is_object())
    for (const auto& [key, value] : given.items())
      if (!schema.find(key))
        throw InputError(fmt::format("{}: unknown option \"{}\"; accepted: {}", schema.name, key,
                                     schema.options.empty() ? "none" : join(schema.keys())));
  const std::vector<OptionProblem> problems = option_problems(schema, given.is_object() ? given : json::object());
  if (!problems.empty())
    throw InputError(fmt::format("{}: options.{} {}", schema.name, problems.front().key, problems.front().message));
  return StepOptions(schema, given);
}

bool StepOptions::given(std::string_view key) const { return given_.contains(key); }

const json& StepOptions::value(std::string_view key) const {
  if (const auto it = given_.find(key); it != given_.end()) return *it;
  const OptionSchema* o = schema_->find(key);
  return o ? o->default_value : null_json();
}

int64_t StepOptions::integer(std::string_view key) const {
  const json& v = value(key);
  if (!v.is_number()) throw InputError(fmt::format("{}: options.{} is not an integer here", schema_->name, key));
  return v.get<int64_t>();
}

bool StepOptions::boolean(std::string_view key) const {
  const json& v = value(key);
  if (!v.is_boolean()) throw InputError(fmt::format("{}: options.{} is not a boolean here", schema_->name, key));
  return v.get<bool>();
}

std::string StepOptions::text(std::string_view key) const {
  const json& v = value(key);
  if (!v.is_string()) throw InputError(fmt::format("{}: options.{} is not a string here", schema_->name, key));
  return v.get<std::string>();
}

const StepSchema* find_step_schema(const std::vector<StepSchema>& table, std::string_view name) {
  for (const auto& s : table)
    if (s.name == name) return &s;
  return nullptr;
}

bool supports_precision(const StepSchema& schema, Precision p) {
  for (Precision q : schema.precisions)
    if (q == p) return true;
  return false;
}

std::vector<OptionProblem> option_problems(const StepSchema& schema, const json& options) {
  std::vector<OptionProblem> out;
  if (!options.is_object()) return out;
  for (const OptionSchema& o : schema.options) {
    const auto it = options.find(o.name);
    if (it == options.end()) continue;
    if (std::string why = o.value_problem(*it); !why.empty()) out.push_back({o.name, why});
  }
  if (out.empty() && schema.constraints) out = schema.constraints(StepOptions(schema, options));
  return out;
}

std::string render_options_markdown(const std::vector<StepSchema>& steps) {
  // A '|' inside a cell is escaped so that the table keeps its columns.
  auto cell = [](const std::string& s) {
    std::string out;
    for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
    return out;
  };
  std::string out = "| step | option | values | default | meaning |\n|---|---|---|---|---|\n";
  std::string constraints;
  for (const StepSchema& s : steps) {
    if (s.test_only) continue;
    for (const OptionSchema& o : s.options) {
      std::string values;
      if (o.range) {
        values = fmt::format("integer {} … {}", o.range->first, o.range->second);
      } else {
        for (const json& v : o.values) values += (values.empty() ? "`" : " | `") + v.dump() + "`";
      }
      const std::string def =
          o.default_value.is_null() ? o.default_doc : std::string("`").append(o.default_value.dump()).append("`");
      out += fmt::format("| `{}` | `{}` | {} | {} | {} |\n", s.name, o.name, cell(values), cell(def), cell(o.doc));
    }
    for (const std::string& c : s.constraint_docs) constraints += fmt::format("- `{}`: {}\n", s.name, c);
  }
  if (!constraints.empty()) out += "\nAcross options:\n\n" + constraints;
  return out;
}

}  // namespace gpubench::config_detail
