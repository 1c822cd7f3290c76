// Step notes are for humans; which of them describe untimed setup copies is a structured field
// (op::Step::setup_notes), never a search of the text (issue 23 item 6).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "measure/pipeline_session.hpp"
#include "measure/session.hpp"
#include "op/operation.hpp"

using namespace gpubench;

namespace {

/// A step with fixed notes and no launch groups (no GPU work).
class NotedStep final : public op::Step {
 public:
  NotedStep(std::vector<std::string> setup, std::vector<std::string> other)
      : setup_(std::move(setup)), other_(std::move(other)) {}
  void setup(const op::Inputs&, void*, cudaStream_t) override {}
  std::vector<op::LaunchGroup> groups() override { return {}; }
  std::vector<std::string> notes() const override { return other_; }
  std::vector<std::string> setup_notes() const override { return setup_; }

 private:
  std::vector<std::string> setup_, other_;
};

TEST(StepNotes, PipelineNotesComeFromSetupNotesNotFromTheWordSetup) {
  // The second human note says "setup" but is timed work; the first has no "setup" in its text but is a setup copy.
  const NotedStep step({"W padded to 16-byte rows (untimed)"}, {"flags zeroed by a timed memset after setup"});
  const std::vector<std::string> notes = measure::pipeline_setup_notes("k_aligned", step);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], "k_aligned: W padded to 16-byte rows (untimed); in the pipeline that copy is made from the "
                      "setup-time inputs");
  EXPECT_TRUE(measure::pipeline_setup_notes("x", NotedStep({}, {"setup"})).empty());
}

TEST(StepNotes, ReportListsSetupNotesFirst) {
  const NotedStep step({"copy A (setup, untimed)", "copy B (setup, untimed)"}, {"timed memset"});
  EXPECT_EQ(measure::step_report_notes(step),
            (std::vector<std::string>{"copy A (setup, untimed)", "copy B (setup, untimed)", "timed memset"}));
}

TEST(StepNotes, BaselineSaysWhetherItsBroadcastCopyIsSetupWork) {
  const op::Operation* lce = op::find_operation("ikbo_lce");
  ASSERT_NE(lce, nullptr);
  const op::StepInfo* baseline = lce->find_step("baseline");
  ASSERT_NE(baseline, nullptr);
  const auto untimed = baseline->create(nlohmann::json{{"time_broadcast", false}});
  EXPECT_EQ(untimed->setup_notes(),
            std::vector<std::string>{"broadcast copy done once in setup (untimed); only 'gemm' timed"});
  EXPECT_TRUE(untimed->notes().empty());
  const auto timed = baseline->create(nlohmann::json{{"time_broadcast", true}});
  EXPECT_TRUE(timed->setup_notes().empty());
  EXPECT_EQ(timed->notes(), std::vector<std::string>{"broadcast copy timed (op 'broadcast')"});
}

}  // namespace
