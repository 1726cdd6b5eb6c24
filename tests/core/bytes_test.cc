#include "olla/core/bytes.h"

#include <gtest/gtest.h>

namespace olla {
namespace {

TEST(BytesTest, CheckedAddDetectsOverflow) {
  EXPECT_EQ(CheckedAdd(1, 2), 3);
  EXPECT_EQ(CheckedAdd(INT64_MAX - 1, 1), INT64_MAX);
  EXPECT_FALSE(CheckedAdd(INT64_MAX, 1).has_value());
  EXPECT_FALSE(CheckedAdd(INT64_MIN, -1).has_value());
}

TEST(BytesTest, FormatsExactAndBinaryUnits) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(1023), "1023 B");
  EXPECT_EQ(FormatBytes(1024), "1024 B (1.0 KiB)");
  EXPECT_EQ(FormatBytes(62914560), "62914560 B (60.0 MiB)");
  EXPECT_EQ(FormatBinaryUnits(int64_t{3} << 30), "3.0 GiB");
  EXPECT_EQ(FormatBinaryUnits(INT64_MAX), "8.0 EiB");
}

TEST(BytesTest, FormatsPercentages) {
  EXPECT_EQ(FormatPercent(1, 3), "33.3%");
  EXPECT_EQ(FormatPercent(0, 5), "0.0%");
  EXPECT_EQ(FormatPercent(1, 0), "n/a");
}

}  // namespace
}  // namespace olla
