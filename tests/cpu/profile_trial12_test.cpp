// What trial 12 found in `gpubench profile`: the default op of the given block was the top op by time, which on a
// trace with an all-to-all under the dense part is an op with no time alone (1.00x, no block); the op worth the work
// ranked lower. The default is now the op with the most time alone, and the block's heading says why.
#include <gtest/gtest.h>

#include <string>

#include "analysis/profile_rank.hpp"
#include "report/profile_render.hpp"
#include "result/profile.hpp"
#include "support/profile_traces.hpp"

namespace gpubench {
namespace {

using testing::KinetoTrace;

class ProfileTrial12 : public testing::ProfileFileTest {
 protected:
  /// Per 100 µs iteration: "a2a" 60 µs on stream 8 under "dense1" and "dense2" (30 µs each, stream 7, back to
  /// back over the same 60 µs), then "emb" 10 µs alone. a2a ranks first by time (60 µs) and runs none of it alone;
  /// the dense ops none either; emb runs 10 µs alone.
  ProfileTrace trace() {
    KinetoTrace t;
    for (int i = 0; i < 3; ++i) {
      const double base = i * 100.0;
      t.annotation("ProfilerStep#" + std::to_string(i), base, 100);
      t.annotation("a2a", base + 1, 1);
      t.annotation("dense1", base + 2, 1);
      t.annotation("dense2", base + 3, 1);
      t.annotation("emb", base + 4, 1);
      t.kernel("k_a2a", base + 10, 60, base + 1.5, 8);
      t.kernel("k_dense1", base + 10, 30, base + 2.5, 7);
      t.kernel("k_dense2", base + 40, 30, base + 3.5, 7);
      t.kernel("k_emb", base + 70, 10, base + 4.5, 7);
    }
    return read_chrome_trace(file("t.json", t.json().dump()), {});
  }
};

TEST_F(ProfileTrial12, TheDefaultOpIsTheOneWithTheMostTimeAlone) {
  const ProfileSummary s = summarize_profile({trace()}, {}, ImportOptions{}.iteration_pattern, {}, {});
  ASSERT_EQ(s.ops.front().op, "a2a");  // the ranking stays by total time
  EXPECT_EQ(s.chosen_op, "emb");
  EXPECT_EQ(s.chosen_by, "time alone");
  EXPECT_TRUE(s.given_missing.empty()) << s.given_missing;
  EXPECT_NEAR(s.given_op_ms, 0.010, 1e-9);
  EXPECT_NEAR(s.given_request_ms, 0.100, 1e-9);
  const std::string text = profile_text(s, 10);
  EXPECT_NE(text.find("end_to_end for 'emb', the op with the most time alone; 'a2a', first by time, runs 0 of its "
                      "0.0600 ms alone; --op picks another (paste into a config):"),
            std::string::npos)
      << text;
  EXPECT_NE(profile_markdown(s).find("`end_to_end` block for `emb`, the op with the most time alone"),
            std::string::npos);
  EXPECT_EQ(profile_json(s)["chosen_by"], "time alone");
}

TEST_F(ProfileTrial12, OpStillChoosesTheTopOpAndSaysWhyItHasNoBlock) {
  const ProfileSummary s =
      summarize_profile({trace()}, {}, ImportOptions{}.iteration_pattern, {}, std::string("a2a"));
  EXPECT_EQ(s.chosen_op, "a2a");
  EXPECT_EQ(s.chosen_by, "--op");
  EXPECT_NE(s.given_missing.find("never runs alone"), std::string::npos) << s.given_missing;
  const std::string text = profile_text(s, 10);
  EXPECT_EQ(text.find("the op with the most time alone"), std::string::npos) << text;
}

TEST_F(ProfileTrial12, OnATieTheTopOpIsChosen) {
  // Without the all-to-all every op runs alone: dense1 and dense2 tie at 30 µs; dense1 ranks first (found first).
  KinetoTrace t;
  for (int i = 0; i < 2; ++i) {
    const double base = i * 100.0;
    t.annotation("ProfilerStep#" + std::to_string(i), base, 100);
    t.annotation("dense1", base + 2, 1);
    t.annotation("dense2", base + 3, 1);
    t.kernel("k_dense1", base + 10, 30, base + 2.5, 7);
    t.kernel("k_dense2", base + 40, 30, base + 3.5, 7);
  }
  const ProfileSummary s = summarize_profile({read_chrome_trace(file("tie.json", t.json().dump()), {})}, {},
                                             ImportOptions{}.iteration_pattern, {}, {});
  EXPECT_EQ(s.chosen_op, s.ops.front().op);
  EXPECT_EQ(profile_text(s, 10).find("the op with the most time alone"), std::string::npos);
}

}  // namespace
}  // namespace gpubench
