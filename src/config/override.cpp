// `--set KEY=VALUE`: command-line overrides of a config, applied to its raw JSON before validation
// (parse.hpp: parse_config_override, apply_config_overrides, mark_override_issues).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <string_view>

#include "config/parse.hpp"
#include "core/json_depth.hpp"

namespace gpubench {
namespace {

/// The dotted parts of `key` ("workload.batch" → {"workload", "batch"}); empty when a part is empty.
std::vector<std::string> split_key(const std::string& key) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    const size_t dot = key.find('.', start);
    parts.push_back(key.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (parts.back().empty()) return {};
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

/// One RFC 6901 reference token ('~' → "~0", '/' → "~1").
std::string escape_token(const std::string& part) {
  std::string out;
  for (char ch : part) out += ch == '~' ? std::string("~0") : ch == '/' ? std::string("~1") : std::string(1, ch);
  return out;
}

/// The index `part` names in a list of `size` elements, or -1 when it is not a whole number.
long long list_index(const std::string& part) {
  if (part.empty() || part.size() > 9 || part.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoll(part);
}

/// A list element's name: an object's "name" member, a bare-name element itself (null when an object has none).
nlohmann::json element_name(const nlohmann::json& e) { return e.is_object() ? e.value("name", nlohmann::json()) : e; }

/// The one element of list `node` that `part` names: a bare-name element equal to it, or an object whose "name" is
/// it (variants.pipelined → the step named pipelined); -1 when none or several do.
long long named_index(const nlohmann::json& node, const std::string& part) {
  long long found = -1;
  for (size_t k = 0; k < node.size(); ++k) {
    if (element_name(node[k]) != part) continue;
    if (found >= 0) return -1;
    found = static_cast<long long>(k);
  }
  return found;
}

/// The JSON pointer `key` reaches in `doc`, a list element named by its name written as its index
/// (variants.pipelined.options.stages → /variants/4/options/stages); without `doc`, KEY's parts as they are
/// ("workload.batch" → "/workload/batch").
std::string resolved_pointer(const std::string& key, const nlohmann::json* doc) {
  std::string p;
  const nlohmann::json* node = doc;
  for (const auto& part : split_key(key)) {
    std::string token = part;
    if (node != nullptr && node->is_array()) {
      const long long idx = list_index(part) >= 0 ? list_index(part) : named_index(*node, part);
      if (idx >= 0 && static_cast<size_t>(idx) < node->size()) {
        token = std::to_string(idx);
        node = &(*node)[static_cast<size_t>(idx)];
      } else {
        node = nullptr;
      }
    } else if (node != nullptr && node->is_object() && node->contains(part)) {
      node = &(*node)[part];
    } else {
      node = nullptr;
    }
    p.append("/").append(escape_token(token));
  }
  return p;
}

/// "KEY=VALUE" as the user wrote it, for messages.
std::string shown(const ConfigOverride& o) {
  std::string out = "--set ";
  out.append(o.key).append("=").append(o.text.empty() ? o.value.dump() : o.text);
  return out;
}

}  // namespace

ConfigOverride parse_config_override(const std::string& arg) {
  const size_t eq = arg.find('=');
  if (eq == std::string::npos)
    throw InputError("--set '" + arg + "': expected KEY=VALUE with KEY a dotted config path, e.g. --set "
                     "workload.batch=2048 or --set precision=bf16");
  ConfigOverride o;
  o.key = arg.substr(0, eq);
  if (split_key(o.key).empty())
    throw InputError("--set '" + arg + "': KEY '" + o.key + "' has an empty part; write a dotted config path such "
                     "as workload.batch or measure.warmup");
  if (split_key(o.key).front() == "plugins")  // read from the file before the config is parsed: an override is lost
    throw InputError("--set '" + arg + "': the plugins list is read before the config (plugins add its ops and "
                     "steps), so it cannot be overridden; give --plugin PATH instead");
  o.text = arg.substr(eq + 1);
  try {
    o.value = parse_json_bounded(o.text);
  } catch (const std::exception&) {  // not JSON (or nested absurdly deep): the text itself, e.g. bf16
    o.value = o.text;
    o.parsed = false;
  }
  // A number below the smallest double (1e-400) parses as 0: say so here, not "got 0" at the field.
  if (o.value.is_number_float() && o.value.get<double>() == 0.0 &&
      o.text.substr(0, o.text.find_first_of("eE")).find_first_of("123456789") != std::string::npos)
    throw InputError("--set '" + arg + "': VALUE " + o.text + " is below the smallest double (≈ 4.9e-324) and would "
                     "read as 0; write 0, or a number the field's range allows");
  return o;
}

void apply_config_overrides(nlohmann::json& j, const std::vector<ConfigOverride>& overrides,
                            const std::string& source) {
  if (overrides.empty()) return;
  if (!j.is_object())
    throw ConfigError(source, {{"", fmt::format("{}: the config is a JSON {}, not an object; fix the file first",
                                                shown(overrides.front()), j.type_name())}});
  for (const ConfigOverride& o : overrides) {
    const std::vector<std::string> parts = split_key(o.key);
    if (parts.empty())
      throw ConfigError(source, {{"", shown(o) + ": KEY has an empty part; write a dotted path such as workload.batch"}});
    nlohmann::json* node = &j;
    std::string at;  // pointer of *node
    for (size_t i = 0; i < parts.size(); ++i) {
      const std::string& part = parts[i];
      // A variant written as its bare name is {"name": …} (docs/config.md): expanded, so that a key inside it can be
      // set (variants.1.options=…).
      if (i == 2 && parts[0] == "variants" && node->is_string()) *node = nlohmann::json{{"name", *node}};
      if (node->is_array()) {
        long long idx = list_index(part);
        if (idx < 0) idx = named_index(*node, part);  // variants.pipelined: the step by its name
        if (idx < 0 || static_cast<size_t>(idx) >= node->size()) {
          // KEY with an index at this list: in place of `part` when it is a number out of range ("-1", "9") or a
          // name several elements have, else 0 before it (a key of the elements: workload.requests.seed →
          // workload.requests.0.seed).
          std::string index;
          if (part.find_first_not_of("-+0123456789") == std::string::npos) index = "0";
          for (size_t k = 0; index.empty() && k < node->size(); ++k) {
            if (element_name((*node)[k]) == part) index = std::to_string(k);
          }
          // A name close to one element's (variants.pipeline): that element, by its name.
          std::vector<std::string> names;
          for (const nlohmann::json& e : *node) {
            const nlohmann::json name = element_name(e);
            if (name.is_string()) names.push_back(name.get<std::string>());
          }
          const std::string guess = index.empty() ? did_you_mean(part, names) : "";
          std::string example;
          for (size_t k = 0; k < parts.size(); ++k) {
            if (k) example += ".";
            if (k != i) example += parts[k];
            else if (!guess.empty()) example += guess;
            else if (!index.empty()) example += index;
            else example.append("0.").append(parts[k]);
          }
          if (!guess.empty())
            throw ConfigError(source, {{at, fmt::format("{}: {} has no element named '{}' (did you mean '{}'?); "
                                                        "e.g. {}",
                                                        shown(o), at, part, guess, example)}});
          const std::string list = fmt::format("{} element{}", node->size(), node->size() == 1 ? "" : "s");
          const size_t last = node->empty() ? 0 : node->size() - 1;
          if (part.find_first_not_of("-+0123456789") == std::string::npos) {  // a number out of range
            const std::string named = names.empty() ? "" : fmt::format("; its names: {}", fmt::join(names, ", "));
            throw ConfigError(source, {{at, fmt::format("{}: {} has no element {}: it is a list of {} (0 to {}){}; "
                                                        "e.g. {}",
                                                        shown(o), at, part, list, last, named, example)}});
          }
          // part is a key inside the elements (a step's keys, whether or not one is written): the index is missing
          bool element_key = at == "/variants" &&
                             std::find(kVariantKeys.begin(), kVariantKeys.end(), part) != kVariantKeys.end();
          for (const nlohmann::json& e : *node) element_key = element_key || (e.is_object() && e.contains(part));
          if (index.empty() && !names.empty() && !element_key) {
            throw ConfigError(source, {{at, fmt::format("{}: {} has no element named '{}'; its names: {} (or an "
                                                        "index, 0 to {})",
                                                        shown(o), at, part, fmt::join(names, ", "), last)}});
          }
          throw ConfigError(source, {{at, fmt::format("{}: {} is a list of {}; name one by its index (0 to {}){} in "
                                                      "KEY, e.g. {}",
                                                      shown(o), at, list, last, names.empty() ? "" : " or its name",
                                                      example)}});
        }
        node = &(*node)[static_cast<size_t>(idx)];
      } else if (node->is_object()) {
        auto it = node->find(part);
        if (it == node->end() && list_index(part) >= 0 && !node->empty()) {
          // An index into one object (workload.shape.0.M where /workload/shape is one shape, not a list of them):
          // the fix is KEY without the index, or the value as a list in the file.
          std::string without;
          for (size_t k = 0; k < parts.size(); ++k)
            if (k != i) without.append(without.empty() ? "" : ".").append(parts[k]);
          throw ConfigError(source, {{at, fmt::format("{}: {} is one object, not a list, so it has no element {}; "
                                                      "set {} instead, or write {} as a list in the file",
                                                      shown(o), at, part, without, at)}});
        }
        if (it == node->end()) it = node->emplace(part, nlohmann::json::object()).first;
        node = &*it;
      } else {
        throw ConfigError(source, {{at, fmt::format("{}: {} is a {}, not an object, so it has no '{}'; set {} "
                                                    "itself or fix KEY",
                                                    shown(o), at, node->type_name(), part, at)}});
      }
      at.append("/").append(escape_token(part));
    }
    *node = o.value;
  }
}

std::vector<ConfigIssue> mark_override_issues(std::vector<ConfigIssue> issues,
                                              const std::vector<ConfigOverride>& overrides, const nlohmann::json* doc) {
  for (ConfigIssue& issue : issues) {
    for (auto o = overrides.rbegin(); o != overrides.rend(); ++o) {  // the last override of a path is what counts
      const std::string p = resolved_pointer(o->key, doc);
      const auto under = [](const std::string& a, const std::string& b) {  // a is b or inside b
        return a == b || (a.size() > b.size() && a.compare(0, b.size(), b) == 0 && a[b.size()] == '/');
      };
      // Or a problem elsewhere that names the override's pointer as its fix ("set /precision to one of those").
      const auto names = [](const std::string& message, const std::string& ptr) {
        for (size_t at = message.find(ptr); at != std::string::npos; at = message.find(ptr, at + 1)) {
          const size_t end = at + ptr.size();
          if (end == message.size() || !(std::isalnum(static_cast<unsigned char>(message[end])) ||
                                         message[end] == '_' || message[end] == '/'))
            return true;
        }
        return false;
      };
      if (!issue.pointer.empty() && !under(issue.pointer, p) && under(p, issue.pointer)) {
        // A problem of an object several overrides set parts of (/workload/shape from M and K_cand): name each,
        // in command-line order, the last of a key only.
        std::vector<std::string> keys, texts;
        for (auto q = overrides.rbegin(); q != overrides.rend(); ++q)
          if (const std::string qp = resolved_pointer(q->key, doc); qp != issue.pointer && under(qp, issue.pointer) &&
                                                         std::find(keys.begin(), keys.end(), q->key) == keys.end()) {
            keys.push_back(q->key);
            texts.insert(texts.begin(), shown(*q));
          }
        issue.message.append(" (set by ");
        for (size_t i = 0; i < texts.size(); ++i) issue.message.append(i ? ", " : "").append(texts[i]);
        issue.message.append(")");
        break;
      }
      const auto marks = [&](const std::string& ptr) {
        return under(issue.pointer, ptr) || under(ptr, issue.pointer) || names(issue.message, ptr);
      };
      if (!issue.pointer.empty() && marks(p)) {
        // Every override that marks the problem, in command-line order, the last of a key only: a step that does
        // not run a precision is as much the step's override as the precision's (trial 9 saw only the last named).
        std::vector<std::string> keys = {o->key}, texts = {shown(*o)};
        for (auto q = o + 1; q != overrides.rend(); ++q)
          if (std::find(keys.begin(), keys.end(), q->key) == keys.end() && marks(resolved_pointer(q->key, doc))) {
            keys.push_back(q->key);
            texts.insert(texts.begin(), shown(*q));
          }
        issue.message.append(" (set by ");
        for (size_t i = 0; i < texts.size(); ++i) issue.message.append(i ? ", " : "").append(texts[i]);
        issue.message.append(")");
        // VALUE that looks like JSON but did not parse ({"a": , 1e400) was read as a string: say so, where the
        // problem is the string's type ("2x2" refused as a value of the right type needs no such note).
        const bool looks_like_json =
            !o->text.empty() && std::string_view("{[\"+-.0123456789").find(o->text[0]) != std::string::npos;
        if (!o->parsed && looks_like_json && issue.message.find("got string") != std::string::npos)
          issue.message += "; VALUE is not valid JSON (or a number out of range), so it was read as a string";
        break;
      }
      // A problem beside the override, in the object that holds it, that names the value it set: the override chose
      // a kind and the problem is that kind's rule (--set workload.requests.distribution=lognormal, then the
      // params lognormal needs).
      const size_t slash = p.rfind('/');
      const std::string parent = p.substr(0, slash);
      const auto names_word = [](const std::string& message, const std::string& word) {  // word on its own
        const auto part_of_word = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; };
        for (size_t at = message.find(word); at != std::string::npos; at = message.find(word, at + 1)) {
          const size_t end = at + word.size();
          if ((at == 0 || !part_of_word(message[at - 1])) && (end == message.size() || !part_of_word(message[end])))
            return true;
        }
        return false;
      };
      // A kind is a string (a number such as a seed would match any bound in a message).
      const std::string value = o->value.is_string() ? o->value.get<std::string>() : std::string();
      if (!issue.pointer.empty() && slash != std::string::npos && under(issue.pointer, parent) && value.size() > 1 &&
          names_word(issue.message, value)) {
        issue.message.append(" (after ").append(shown(*o)).append(")");
        break;
      }
      // A required key missing beside the override: the override made (or filled) the object that needs it
      // (--set end_to_end.given.request_ms=100, then /end_to_end/given/op_ms required).
      if (slash != std::string::npos && issue.message.rfind("required", 0) == 0 &&
          issue.pointer.substr(0, issue.pointer.rfind('/')) == parent) {
        issue.message.append(" (after ").append(shown(*o)).append(")");
        break;
      }
    }
  }
  return issues;
}

}  // namespace gpubench
