// What trial 10 found in `gpubench profile`'s tables, mended and held here: the dollar line spoke of the top op under
// `--op` another, the op's dollars and the fleet's bill were both headed "$/month", and with overlapping ops a row
// showed the op's whole share of wall time beside dollars of its time alone, with no column to reconcile them.
#include <gtest/gtest.h>

#include <string>

#include "analysis/profile_rank.hpp"
#include "report/profile_render.hpp"
#include "result/profile.hpp"
#include "support/profile_traces.hpp"

namespace gpubench {
namespace {

using testing::KinetoTrace;

class ProfileTrial10 : public testing::ProfileFileTest {
 protected:
  /// Per 100 µs iteration, one after another: "a" 40 µs, "b" 20 µs, "c" 10 µs (30 µs idle). With `overlap`, also
  /// "side" on another stream under a's last 20 µs.
  ProfileTrace trace(bool overlap) {
    KinetoTrace t;
    for (int i = 0; i < 3; ++i) {
      const double base = i * 100.0;
      t.annotation("ProfilerStep#" + std::to_string(i), base, 100);
      t.annotation("a", base + 1, 1);
      t.annotation("b", base + 2, 1);
      t.annotation("c", base + 3, 1);
      t.kernel("ka", base + 10, 40, base + 1.5, 7);
      t.kernel("kb", base + 50, 20, base + 2.5, 7);
      t.kernel("kc", base + 70, 10, base + 3.5, 7);
      if (overlap) {
        t.annotation("side", base + 4, 1);
        t.kernel("ks", base + 30, 20, base + 4.5, 8);
      }
    }
    return read_chrome_trace(file(overlap ? "o.json" : "s.json", t.json().dump()), {});
  }
  static BillOptions bill() {
    BillOptions b;
    b.gpu_hour_usd = 2;
    b.gpus = 10;  // 10 × $2 × 730 h = $14,600 a month
    return b;
  }
};

TEST_F(ProfileTrial10, TheDollarLineIsTheChosenOps) {
  const ProfileSummary s =
      summarize_profile({trace(false)}, {}, ImportOptions{}.iteration_pattern, bill(), std::string("c"));
  ASSERT_EQ(s.chosen_op, "c");
  const std::string text = profile_text(s, 10);
  // c: 10% of wall = $1,460; a 2x saves half of it. The top op a (40%, $5,840) is not what --op chose.
  EXPECT_NE(text.find("accelerable: 'c' holds 10.0% of wall time = $1460/month; a 2x on it saves $730/month"),
            std::string::npos) << text;
  EXPECT_EQ(text.find("accelerable: 'a'"), std::string::npos) << text;
  EXPECT_NE(text.find("GPU bill: 10 GPUs × $2.00 an hour × 730 h = $14600/month"), std::string::npos) << text;
  EXPECT_NE(text.find("op $/month"), std::string::npos) << text;
  EXPECT_NE(profile_markdown(s).find("| op $/month |"), std::string::npos) << profile_markdown(s);
}

TEST_F(ProfileTrial10, OverlappingOpsGetAColumnOfTheirShareAlone) {
  const ProfileSummary apart = summarize_profile({trace(false)}, {}, ImportOptions{}.iteration_pattern, bill(), {});
  EXPECT_EQ(profile_text(apart, 10).find(" alone "), std::string::npos) << "no column when no op overlaps";
  EXPECT_EQ(profile_markdown(apart).find("share of wall alone"), std::string::npos);

  const ProfileSummary s = summarize_profile({trace(true)}, {}, ImportOptions{}.iteration_pattern, bill(), {});
  const std::string text = profile_text(s, 10);
  // a runs 40 µs, 20 of them alone (side covers the rest): 40.0% of wall, 20.0% alone, and its dollars are 20%'s.
  const size_t header = text.find("  wall   alone  ");
  ASSERT_NE(header, std::string::npos) << text;
  const size_t row = text.find("\n  1  a ");
  ASSERT_NE(row, std::string::npos) << text;
  EXPECT_NE(text.find("  40.0%   20.0%  ", row), std::string::npos) << text;
  EXPECT_LT(text.find("  40.0%   20.0%  ", row), text.find('\n', row + 1)) << text;
  EXPECT_NE(text.find("$2920", row), std::string::npos) << text;  // 20% of $14,600
  const std::string md = profile_markdown(s);
  EXPECT_NE(md.find("| share of wall | share of wall alone | request if op → 0 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 40.0% | 20.0% |"), std::string::npos) << md;
  // Every Markdown table row has as many cells as the header (the idle row too).
  const auto cells = [](const std::string& line) { return std::count(line.begin(), line.end(), '|'); };
  const size_t h = md.find("| # | op |");
  const std::string head = md.substr(h, md.find('\n', h) - h);
  const size_t idle = md.find("| | (GPU idle) |");
  ASSERT_NE(idle, std::string::npos) << md;
  EXPECT_EQ(cells(md.substr(idle, md.find('\n', idle) - idle)), cells(head)) << md;
}

TEST_F(ProfileTrial10, RequestsPerIterationGoIntoTheGivenBlock) {
  ProfileSummary s = summarize_profile({trace(false)}, {}, ImportOptions{}.iteration_pattern, bill(), {});
  EXPECT_FALSE(profile_given_block(s)["end_to_end"]["given"].contains("requests"));
  s.given_requests = 15;  // profile --requests 15
  EXPECT_EQ(profile_given_block(s)["end_to_end"]["given"]["requests"], 15);
}

}  // namespace
}  // namespace gpubench
