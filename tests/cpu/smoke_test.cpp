#include <gtest/gtest.h>

#include "core/precision.hpp"

TEST(Precision, ElementBytesAndTolerance) {
  EXPECT_EQ(gpubench::element_bytes(gpubench::Precision::kFp16), 2);
  EXPECT_EQ(gpubench::element_bytes(gpubench::Precision::kFp32), 4);
  EXPECT_DOUBLE_EQ(gpubench::default_tolerance(gpubench::Precision::kBf16), 1e-2);
}
