// The report's statuses and sources are enums in code and the same words in JSON as before (issue 23 item 6):
// every value round-trips through its word, an unknown word is an error naming the field, committed reports read.
#include <gtest/gtest.h>

#include <functional>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "result/report.hpp"
#include "result/report_io.hpp"

using namespace gpubench;
using nlohmann::json;

namespace {

/// Each value → its word (to_string and to_json) → the value (from_string and from_json).
template <class E>
void expect_words(const std::vector<std::pair<E, std::string>>& table) {
  for (const auto& [value, word] : table) {
    EXPECT_EQ(to_string(value), word);
    EXPECT_EQ(json(value), json(word));
    E parsed = value == table.front().first ? table.back().first : table.front().first;  // anything but `value`
    ASSERT_TRUE(from_string(word, parsed)) << word;
    EXPECT_EQ(parsed, value) << word;
    EXPECT_EQ(json(word).get<E>(), value) << word;
  }
  E untouched = table.front().first;
  EXPECT_FALSE(from_string("OK", untouched));  // case-sensitive, and no partial words
  EXPECT_FALSE(from_string("", untouched));
  EXPECT_EQ(untouched, table.front().first);
}

TEST(ReportEnums, EveryValueHasTodaysWord) {
  expect_words<StepStatus>(
      {{StepStatus::kOk, "ok"}, {StepStatus::kFailed, "failed"}, {StepStatus::kSkipped, "skipped"}});
  expect_words<CheckStatus>(
      {{CheckStatus::kPass, "pass"}, {CheckStatus::kFail, "fail"}, {CheckStatus::kSkipped, "skipped"}});
  expect_words<CountersStatus>({{CountersStatus::kOk, "ok"}, {CountersStatus::kUnavailable, "unavailable"}});
  expect_words<EndToEndSource>({{EndToEndSource::kGiven, "given"},
                                {EndToEndSource::kMeasured, "measured"},
                                {EndToEndSource::kProjected, "projected"}});
  expect_words<PipelineStatus>({{PipelineStatus::kOk, "ok"}, {PipelineStatus::kFailed, "failed"}});
  expect_words<TimingSource>(
      {{TimingSource::kCupti, "cupti"}, {TimingSource::kEvents, "events"}, {TimingSource::kNone, "none"}});
}

TEST(ReportEnums, AStepWritesAndReadsItsWordsInPlace) {
  VariantResult v;
  v.name = "k_aligned";
  v.status = StepStatus::kSkipped;
  v.correctness.status = CheckStatus::kFail;
  v.launch_groups.emplace_back().source = TimingSource::kEvents;
  v.end_to_end.emplace().source = EndToEndSource::kMeasured;
  v.pipeline.emplace().status = PipelineStatus::kFailed;
  v.pipeline->stages.emplace_back().source = TimingSource::kNone;
  v.counters.emplace().status = CountersStatus::kUnavailable;
  const json j = v;
  EXPECT_EQ(j.at("status"), "skipped");
  EXPECT_EQ(j.at("correctness").at("status"), "fail");
  EXPECT_EQ(j.at("launch_groups").at(0).at("source"), "events");
  EXPECT_EQ(j.at("end_to_end").at("source"), "measured");
  EXPECT_EQ(j.at("pipeline").at("status"), "failed");
  EXPECT_EQ(j.at("pipeline").at("stages").at(0).at("source"), "none");
  EXPECT_EQ(j.at("counters").at("status"), "unavailable");
  const VariantResult back = j.get<VariantResult>();
  EXPECT_EQ(json(back), j);
}

/// A minimal report whose first step's JSON is patched by `patch`; the parse error message ("" when it reads).
std::string parse_error(const std::function<void(json&)>& patch) {
  Report r;
  CaseResult c;
  c.label = "B=8";
  VariantResult v;
  v.name = "baseline";
  v.region_samples_ms = {1.0};
  v.launch_groups.emplace_back().name = "gemm";
  v.launch_groups.back().samples_ms = {1.0};
  c.variants.push_back(v);
  r.cases.push_back(c);
  json j = r;
  patch(j["cases"][0]["variants"][0]);
  try {
    (void)parse_report(j, "r.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ReportEnums, AnUnknownWordNamesItsFieldAndTheWords) {
  EXPECT_EQ(parse_error([](json&) {}), "");
  EXPECT_EQ(parse_error([](json& v) { v["launch_groups"][0]["source"] = "nvtx"; }),
            "r.json: malformed report: /cases/0/variants/0/launch_groups/0/source: 'nvtx' is not cupti, events or none; "
            "re-run the benchmark to regenerate it");
  EXPECT_EQ(parse_error([](json& v) { v["counters"] = {{"status", "Ok"}}; }),
            "r.json: malformed report: /cases/0/variants/0/counters/status: 'Ok' is not ok or unavailable; "
            "re-run the benchmark to regenerate it");
  EXPECT_EQ(parse_error([](json& v) { v["end_to_end"] = {{"source", 1}}; }),
            "r.json: malformed report: /cases/0/variants/0/end_to_end/source: number 1 is not given, measured or "
            "projected (a string); re-run the benchmark to regenerate it");
  EXPECT_NE(parse_error([](json& v) { v["pipeline"] = {{"status", "skipped"}}; })
                .find("/cases/0/variants/0/pipeline/status: 'skipped' is not ok or failed"),
            std::string::npos);
}

/// Every status and source word of a report's JSON, in document order.
std::vector<std::string> words_of(const json& report) {
  std::vector<std::string> w;
  auto stages = [&](const json& list) {
    for (const auto& o : list) w.push_back(o.at("source").get<std::string>());
  };
  for (const auto& c : report.at("cases")) {
    for (const auto& v : c.at("variants")) {
      w.push_back(v.at("status").get<std::string>());
      w.push_back(v.at("correctness").at("status").get<std::string>());
      stages(v.contains("launch_groups") ? v.at("launch_groups") : v.at("ops"));  // version 2, or 1 (committed)
      if (v.contains("end_to_end")) w.push_back(v.at("end_to_end").at("source").get<std::string>());
      if (v.contains("pipeline")) {
        w.push_back(v.at("pipeline").at("status").get<std::string>());
        stages(v.at("pipeline").at("stages"));
      }
      if (v.contains("counters")) w.push_back(v.at("counters").at("status").get<std::string>());
    }
  }
  return w;
}

TEST(ReportEnums, CommittedReportsReadAndWriteTheSameWords) {
  // Events-timed launch groups and skipped steps; a measured pipeline with end-to-end "measured"; counters "ok".
  for (const char* file : {"results/h200/2026-11-30_a8abeb3/ncu_fallback.json.gz",
                           "results/h200/2026-12-01_c5f07d3/e2e_pipeline.json.gz",
                           "results/h200/2026-12-01_smem/data/smem.json.gz"}) {
    const std::string path = std::string(GPUBENCH_SOURCE_DIR) + "/" + file;
    const json original = load_report_json(path);
    const Report r = load_report(path);
    const std::vector<std::string> words = words_of(original);
    ASSERT_GT(words.size(), 10u) << file;
    EXPECT_EQ(words_of(json(r)), words) << file;
  }
}

}  // namespace
