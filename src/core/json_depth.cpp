#include "core/json_depth.hpp"

#include <unordered_set>

#include <fmt/format.h>

namespace gpubench {

namespace {

/// Records keys that appear twice in one object (nlohmann keeps only the last value silently).
/// Walks the parser's events keeping the JSON pointer of the current position.
class DuplicateKeys {
 public:
  explicit DuplicateKeys(std::vector<std::string>& found) : found_(found) {}

  /// Follows one parser event (nlohmann::json::parser_callback_t's event and value).
  void on_event(nlohmann::json::parse_event_t event, const nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    switch (event) {
      case E::object_start:
      case E::array_start:
        enter_element();
        frames_.push_back({event == E::object_start, {}, {}, 0});
        break;
      case E::object_end:
      case E::array_end:
        if (!frames_.empty()) frames_.pop_back();
        break;
      case E::key:
        if (!frames_.empty()) {
          auto& top = frames_.back();
          top.token = parsed.get<std::string>();
          if (!top.keys.insert(top.token).second) found_.push_back(pointer());
        }
        break;
      case E::value:
        enter_element();
        break;
    }
  }

 private:
  struct Frame {
    bool object;
    std::unordered_set<std::string> keys;  ///< keys seen so far (objects)
    std::string token;                     ///< reference token of the current child
    size_t next_index;                     ///< next element index (arrays)
  };
  /// A new element starts: inside an array it takes the next index.
  void enter_element() {
    if (!frames_.empty() && !frames_.back().object) frames_.back().token = std::to_string(frames_.back().next_index++);
  }
  std::string pointer() const {
    std::string p;
    for (const auto& f : frames_) {
      p += '/';
      for (char ch : f.token) p += ch == '~' ? std::string("~0") : ch == '/' ? std::string("~1") : std::string(1, ch);
    }
    return p;
  }
  std::vector<Frame> frames_;
  std::vector<std::string>& found_;
};

}  // namespace

JsonTooDeep::JsonTooDeep() : std::runtime_error(fmt::format("JSON nested deeper than {} levels", kMaxJsonDepth)) {}

bool opens_too_deep(int depth, nlohmann::json::parse_event_t event) {
  using E = nlohmann::json::parse_event_t;
  // The callback gets the depth of the enclosing containers: a top-level '[' comes with 0, so the
  // container opened here is level depth + 1.
  return (event == E::array_start || event == E::object_start) && depth >= kMaxJsonDepth;
}

nlohmann::json parse_json_bounded(const std::string& text, std::vector<std::string>* duplicate_keys) {
  std::vector<std::string> unused;
  DuplicateKeys dups(duplicate_keys != nullptr ? *duplicate_keys : unused);
  return nlohmann::json::parse(text, [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    if (opens_too_deep(depth, event)) throw JsonTooDeep();  // before a deep tree exists (stack overflow)
    if (duplicate_keys != nullptr) dups.on_event(event, parsed);
    return true;
  });
}

std::string json_too_deep_message(const std::string& what) {
  return fmt::format("JSON nested deeper than {} arrays/objects; {} never nests this deep: the file is corrupt or "
                     "not one, fix or regenerate it",
                     kMaxJsonDepth, what);
}

}  // namespace gpubench
