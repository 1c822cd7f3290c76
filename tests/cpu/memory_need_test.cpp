// case_memory_need (measure/session.cpp): the device-memory pre-check's arithmetic on known shapes,
// computed by hand from its documented terms (check sets, timing input sets, workspace).
#include <gtest/gtest.h>

#include <limits>

#include "support/op_context.hpp"
#include "config/config.hpp"
#include "measure/session.hpp"

namespace gpubench {
namespace {

Config tiny(bool check, int seeds) {
  Config c = gpubench::testing::lce_config();
  c.precision = Precision::kFp16;
    c.workload.shape.set("M", 4);
  c.workload.shape.set("N", 8);
  c.workload.shape.set("K_user", 3);
  c.workload.shape.set("K_cand", 5);
  c.check.enabled = check;
  c.check.seeds.assign(static_cast<size_t>(seeds), 1);
  return c;
}

TEST(MemoryNeed, TinyShapeByHand) {
  // B=10, U=2, fp16 (2 B/element):
  //   operands  = 2·(M·(Ku+Kc) + U·Ku·N + B·Kc·N) + 4·(B+U+1) = 2·(32+48+400) + 52 = 1012
  //   Y         = 2·B·M·N = 640;  Y_ref (fp32) = 1280
  //   broadcast = 2·B·(Ku+Kc)·N = 1280;  padded = 1012 + 2·(B+U)·8·N = 2548
  //   workspace = max(1280, 2548) + 640 = 3188
  //   need      = seeds·(1012+1280+2·640) + sets·(1012+640+3188) + 3188
  const Shape s = tiny(true, 1).workload.shape;
  EXPECT_EQ(measure::case_memory_need(tiny(true, 2), s, 10, 2, 3), 2 * 3572 + 3 * 4840 + 3188);  // 24852
  EXPECT_EQ(measure::case_memory_need(tiny(false, 2), s, 10, 2, 3), 3 * 4840 + 3188);            // no check
  EXPECT_EQ(measure::case_memory_need(tiny(true, 1), s, 10, 2, 1), 3572 + 4840 + 3188);
}

TEST(MemoryNeed, ReferenceShapeIsBroadcastBound) {
  // IKBO reference shape, B=1024, U=15, one seed, one input set: the baseline's broadcast copy
  // (1024·2044·256·2 B ≈ 1.07 GB) is the workspace.
  Config c = tiny(true, 1);
  c.workload.shape.set("M", 433);
  c.workload.shape.set("N", 256);
  c.workload.shape.set("K_user", 1178);
  c.workload.shape.set("K_cand", 866);
  EXPECT_EQ(measure::case_memory_need(c, c.workload.shape, 1024, 15, 1), int64_t{4'662'115'696});
  // 2,000,000 candidates: ≈ 8473 GiB, what the GPU test's oversized config asks for.
  EXPECT_GT(measure::case_memory_need(c, c.workload.shape, 2'000'000, 28'572, 1), int64_t{8000} << 30);
}

TEST(MemoryNeed, ANeedPastInt64SaturatesInsteadOfWrapping) {
  // W alone is 1.5e9 · 1.5e9 · 2 B = 4.5e18 B (fits int64); two check seeds and a timing set of it do not: the sum
  // wrapped to a negative need, which "fit" any device. Saturated, it reads as INT64_MAX.
  Config c = tiny(true, 2);
  c.workload.shape.set("M", 1'500'000'000);
  c.workload.shape.set("K_user", 1'500'000'000);
  c.workload.shape.set("K_cand", 0);
  EXPECT_EQ(measure::case_memory_need(c, c.workload.shape, 1, 1, 1), std::numeric_limits<int64_t>::max());
  c.workload.shape.set("M", 4);  // the same config at a small M: an exact, small need again
  EXPECT_GT(measure::case_memory_need(c, c.workload.shape, 1, 1, 1), 0);
  EXPECT_LT(measure::case_memory_need(c, c.workload.shape, 1, 1, 1), int64_t{1} << 40);
}

}  // namespace
}  // namespace gpubench
