#pragma once
// Parsing JSON with a nesting limit. nlohmann's parser itself is iterative, but what reads the document
// afterwards (config validation, report readers, copies, dump) recurses once per level: 150,000 nested `[`
// overflowed the stack (SIGSEGV) in validate, plan, run and compare. Every reader of a file the user
// hands us parses through here and refuses anything deeper than kMaxJsonDepth.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpubench {

/// Deepest nesting of arrays and objects accepted in an input file: far above any real config,
/// histogram or report (a report nests about 8 levels), far below what overflows a thread's stack.
inline constexpr int kMaxJsonDepth = 256;

/// Thrown by parse_json_bounded when the document nests deeper than kMaxJsonDepth. Not an
/// InputError: each reader turns it into its own error naming the file (json_too_deep_message).
struct JsonTooDeep : std::runtime_error {
  JsonTooDeep();
};

/// True when a parser-callback event `event` at parser depth `depth` (nlohmann's callback argument: 0
/// for the top-level value) opens a level beyond kMaxJsonDepth. Parser callbacks throw JsonTooDeep then.
bool opens_too_deep(int depth, nlohmann::json::parse_event_t event);

/// Parses `text` like nlohmann::json::parse (throws nlohmann::json::exception on bad syntax), but
/// throws JsonTooDeep as soon as an array or object opens past kMaxJsonDepth, before any deep tree
/// is built. Never recurses per level. nlohmann keeps only the last value of a key that appears twice in one
/// object; with `duplicate_keys` given, the JSON pointer of each such key is appended to it, in document order.
nlohmann::json parse_json_bounded(const std::string& text, std::vector<std::string>* duplicate_keys = nullptr);

/// The problem text for a key that appears twice in one object: what JSON does with it and the fix.
inline constexpr const char* kDuplicateKeyMessage = "duplicate key; JSON keeps only the last value, remove one";

/// "nested deeper than 256 arrays/objects …" (no file name): the reason and the fix, for every reader's
/// error (`what` names the kind of file, e.g. "a gpubench config").
std::string json_too_deep_message(const std::string& what);

}  // namespace gpubench
