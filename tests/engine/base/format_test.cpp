// The one value formatter of the CLI's and the app's tables.
#include "engine/base/format.h"

#include <gtest/gtest.h>

#include <cmath>

namespace asyncscope {
namespace {

TEST(FormatValue, ScalesTimesToTheirMagnitude) {
  EXPECT_EQ(format_value(0.1836, "s"), "183.6 ms");
  EXPECT_EQ(format_value(2.7e-6, "s"), "2.7 \xC2\xB5s");
  EXPECT_EQ(format_value(1500, "us"), "1.5 ms");
  EXPECT_EQ(format_value(0, "s"), "0 s");
}

TEST(FormatValue, BytesInBinaryUnits) {
  EXPECT_EQ(format_value(512, "B"), "512 B");
  EXPECT_EQ(format_value(4096, "B"), "4 KB");
  EXPECT_EQ(format_value(12.0 * 1024 * 1024, "B"), "12 MB");
  EXPECT_EQ(format_value(1.5 * 1024 * 1024 * 1024, "B"), "1.5 GB");
  EXPECT_EQ(format_value(0, "B"), "0 B");
}

TEST(FormatValue, CountsInFullAndOddValuesAsADash) {
  EXPECT_EQ(format_value(1234567, ""), "1234567");
  EXPECT_EQ(format_value(NAN, "s"), "\xE2\x80\x94");  // an em dash
  EXPECT_EQ(format_value(2.307, "x"), "2.307\xC3\x97");
}

}  // namespace
}  // namespace asyncscope
