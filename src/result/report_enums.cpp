// The report's statuses and sources (result/report.hpp) as words: one table per enum, used by to_string,
// from_string and the JSON readers and writers, so the JSON keeps the words schema_version 1 always had.
#include <array>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "result/report.hpp"

namespace gpubench {
namespace {

/// An enum's values and their words, each value once.
template <class E, size_t N>
using Words = std::array<std::pair<E, std::string_view>, N>;

constexpr Words<StepStatus, 3> kStepStatus{
    {{StepStatus::kOk, "ok"}, {StepStatus::kFailed, "failed"}, {StepStatus::kSkipped, "skipped"}}};
constexpr Words<CheckStatus, 3> kCheckStatus{
    {{CheckStatus::kPass, "pass"}, {CheckStatus::kFail, "fail"}, {CheckStatus::kSkipped, "skipped"}}};
constexpr Words<CountersStatus, 2> kCountersStatus{
    {{CountersStatus::kOk, "ok"}, {CountersStatus::kUnavailable, "unavailable"}}};
constexpr Words<EndToEndSource, 3> kEndToEndSource{{{EndToEndSource::kGiven, "given"},
                                                    {EndToEndSource::kMeasured, "measured"},
                                                    {EndToEndSource::kProjected, "projected"}}};
constexpr Words<PipelineStatus, 2> kPipelineStatus{{{PipelineStatus::kOk, "ok"}, {PipelineStatus::kFailed, "failed"}}};
constexpr Words<TimingSource, 3> kTimingSource{
    {{TimingSource::kCupti, "cupti"}, {TimingSource::kEvents, "events"}, {TimingSource::kNone, "none"}}};

template <class E, size_t N>
std::string_view word(const Words<E, N>& words, E v) {
  for (const auto& [e, w] : words)
    if (e == v) return w;
  return "?";  // unreachable: every value is in its table
}

template <class E, size_t N>
bool parse(const Words<E, N>& words, std::string_view text, E& out) {
  for (const auto& [e, w] : words) {
    if (w == text) {
      out = e;
      return true;
    }
  }
  return false;
}

/// "ok, failed or skipped": the table's words, for error messages.
template <class E, size_t N>
std::string accepted(const Words<E, N>& words) {
  std::string s;
  for (size_t i = 0; i < N; ++i) s += (i == 0 ? "" : i + 1 == N ? " or " : ", ") + std::string(words[i].second);
  return s;
}

/// A JSON value that is not one of an enum's words: a nlohmann::json::exception, so the report reader
/// (result/report_io.cpp) names the field's JSON pointer like any other malformed value.
class UnknownWord : public nlohmann::json::exception {
 public:
  explicit UnknownWord(const std::string& what) : nlohmann::json::exception(0, what.c_str()) {}
};

template <class E, size_t N>
void read_word(const nlohmann::json& j, const Words<E, N>& words, E& out) {
  if (!j.is_string())
    throw UnknownWord(std::string(j.type_name()) + " " + j.dump() + " is not " + accepted(words) + " (a string)");
  if (!parse(words, j.get_ref<const std::string&>(), out))
    throw UnknownWord("'" + j.get<std::string>() + "' is not " + accepted(words));
}

}  // namespace

std::string_view to_string(StepStatus v) { return word(kStepStatus, v); }
std::string_view to_string(CheckStatus v) { return word(kCheckStatus, v); }
std::string_view to_string(CountersStatus v) { return word(kCountersStatus, v); }
std::string_view to_string(EndToEndSource v) { return word(kEndToEndSource, v); }
std::string_view to_string(PipelineStatus v) { return word(kPipelineStatus, v); }
std::string_view to_string(TimingSource v) { return word(kTimingSource, v); }

bool from_string(std::string_view text, StepStatus& out) { return parse(kStepStatus, text, out); }
bool from_string(std::string_view text, CheckStatus& out) { return parse(kCheckStatus, text, out); }
bool from_string(std::string_view text, CountersStatus& out) { return parse(kCountersStatus, text, out); }
bool from_string(std::string_view text, EndToEndSource& out) { return parse(kEndToEndSource, text, out); }
bool from_string(std::string_view text, PipelineStatus& out) { return parse(kPipelineStatus, text, out); }
bool from_string(std::string_view text, TimingSource& out) { return parse(kTimingSource, text, out); }

void to_json(nlohmann::json& j, StepStatus v) { j = std::string(to_string(v)); }
void from_json(const nlohmann::json& j, StepStatus& v) { read_word(j, kStepStatus, v); }
void to_json(nlohmann::json& j, CheckStatus v) { j = std::string(to_string(v)); }
void from_json(const nlohmann::json& j, CheckStatus& v) { read_word(j, kCheckStatus, v); }
void to_json(nlohmann::json& j, CountersStatus v) { j = std::string(to_string(v)); }
void from_json(const nlohmann::json& j, CountersStatus& v) { read_word(j, kCountersStatus, v); }
void to_json(nlohmann::json& j, EndToEndSource v) { j = std::string(to_string(v)); }
void from_json(const nlohmann::json& j, EndToEndSource& v) { read_word(j, kEndToEndSource, v); }
void to_json(nlohmann::json& j, PipelineStatus v) { j = std::string(to_string(v)); }
void from_json(const nlohmann::json& j, PipelineStatus& v) { read_word(j, kPipelineStatus, v); }
void to_json(nlohmann::json& j, TimingSource v) { j = std::string(to_string(v)); }
void from_json(const nlohmann::json& j, TimingSource& v) { read_word(j, kTimingSource, v); }

}  // namespace gpubench
