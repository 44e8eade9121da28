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
  EXPECT_EQ(format_value(512, "B"), "512 B");  // bytes read as format_bytes has them
  EXPECT_EQ(format_value(4096, "B"), "4.00 KB");
  EXPECT_EQ(format_value(12.0 * 1024 * 1024, "B"), "12.0 MB");
  EXPECT_EQ(format_value(1.5 * 1024 * 1024 * 1024, "B"), "1.50 GB");
  EXPECT_EQ(format_value(0, "B"), "0 B");
}

TEST(FormatValue, CountsInFullAndOddValuesAsADash) {
  EXPECT_EQ(format_value(1234567, ""), "1234567");
  EXPECT_EQ(format_value(NAN, "s"), "\xE2\x80\x94");  // an em dash
  EXPECT_EQ(format_value(2.307, "x"), "2.307\xC3\x97");
}

TEST(Format, DurationsBytesAndCountsHaveThreeSignificantDigits) {
  EXPECT_EQ(format_duration(812), "812 ns");
  EXPECT_EQ(format_duration(1'234), "1.23 \u00b5s");
  EXPECT_EQ(format_duration(45'600'000), "45.6 ms");
  EXPECT_EQ(format_duration(2'350'000'000), "2.35 s");
  EXPECT_EQ(format_duration(999'700), "1.00 ms");
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(1536), "1.50 KB");
  EXPECT_EQ(format_bytes(int64_t{23} * 1024 * 1024 + 400 * 1024), "23.4 MB");
  EXPECT_EQ(format_bytes(int64_t{1300} * 1024 * 1024), "1.27 GB");
  EXPECT_EQ(format_count(0), "0");
  EXPECT_EQ(format_count(999), "999");
  EXPECT_EQ(format_count(1'234'567), "1,234,567");
}

}  // namespace
}  // namespace asyncscope
