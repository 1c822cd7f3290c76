#include "core/json_depth.hpp"

#include <fmt/format.h>

namespace gpubench {

JsonTooDeep::JsonTooDeep() : std::runtime_error(fmt::format("JSON nested deeper than {} levels", kMaxJsonDepth)) {}

bool opens_too_deep(int depth, nlohmann::json::parse_event_t event) {
  using E = nlohmann::json::parse_event_t;
  // The callback gets the depth of the enclosing containers: a top-level '[' comes with 0, so the
  // container opened here is level depth + 1.
  return (event == E::array_start || event == E::object_start) && depth >= kMaxJsonDepth;
}

nlohmann::json parse_json_bounded(const std::string& text) {
  return nlohmann::json::parse(text, [](int depth, nlohmann::json::parse_event_t event, nlohmann::json&) {
    if (opens_too_deep(depth, event)) throw JsonTooDeep();
    return true;
  });
}

std::string json_too_deep_message(const std::string& what) {
  return fmt::format("JSON nested deeper than {} arrays/objects; {} never nests this deep: the file is corrupt or "
                     "not one, fix or regenerate it",
                     kMaxJsonDepth, what);
}

}  // namespace gpubench
