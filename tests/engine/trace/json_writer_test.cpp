// The export's JSON writer against nlohmann's: numbers read back exactly
// and are laid out as nlohmann lays them out, strings are escaped the same
// way, text that is not UTF-8 still gives valid JSON, and the structure
// (commas, nesting) is what a parser expects.
#include "engine/trace/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>

namespace asyncscope::trace {
namespace {

using nlohmann::json;

std::string written(double d) {
  std::ostringstream out;
  {
    JsonWriter w(out);
    w.value(d);
  }
  return out.str();
}

TEST(JsonWriter, DoublesReadBackExactlyAndLookAsNlohmannWritesThem) {
  std::mt19937_64 random(7);
  std::vector<double> values = {1.0,    2000.0, 0.5,    13.62,   13.14, 1e-05, 1.5e-07, 123456789012345.0,
                                1e15,   1e16,   1.7e300, -2.5,   0.1,   1e-4,  9.999e-5, 1234.5678e10,
                                5e-324, std::numeric_limits<double>::max(), -0.0, 0.0, 7.100999999995111};
  for (int i = 0; i < 20000; ++i) {
    const uint64_t bits = random();
    double d;
    std::memcpy(&d, &bits, sizeof(d));
    if (std::isfinite(d)) values.push_back(d);
    values.push_back(static_cast<double>(random() % 100000000) / 1000.0);  // micros of a trace
  }
  size_t same = 0;
  for (const double d : values) {
    const std::string ours = written(d);
    const std::string theirs = json(d).dump();
    ASSERT_EQ(json::parse(ours).get<double>(), d) << ours;
    if (std::signbit(d) == std::signbit(json::parse(ours).get<double>())) ++same;
    // nlohmann's Grisu2 now and then gives a digit more than the shortest
    // form, or another last digit of the same length; never fewer digits.
    if (ours != theirs) {
      EXPECT_LE(ours.size(), theirs.size()) << ours << " vs " << theirs;
      EXPECT_EQ(json::parse(theirs).get<double>(), d);
    }
  }
  EXPECT_EQ(same, values.size());
  EXPECT_EQ(written(2000.0), "2000.0");
  EXPECT_EQ(written(13.62), "13.62");
  EXPECT_EQ(written(1e-05), "1e-05");
  EXPECT_EQ(written(1e16), "1e+16");
  EXPECT_EQ(written(-0.0), "-0.0");
  EXPECT_EQ(written(std::nan("")), "null");
}

TEST(JsonWriter, StringsAreEscapedAsNlohmannEscapesThem) {
  for (const std::string s : {std::string("plain"), std::string("quote \" back \\ slash"),
                              std::string("ctl \x01\x1f \b\f\n\r\t del \x7f"), std::string("naïve ✓ 日本 🎉"),
                              std::string("nul \0 inside", 12)}) {
    EXPECT_EQ(json_string(s), json(s).dump()) << s;
  }
  // Not UTF-8: valid JSON all the same, each bad byte a U+FFFD.
  for (const std::string bad : {std::string("\xff"), std::string("a\xc3"), std::string("\xed\xa0\x80"),
                                std::string("\xc0\xaf"), std::string("ok \xe2\x82 end")}) {
    const std::string text = json_string(bad);
    const std::string back = json::parse(text).get<std::string>();
    EXPECT_NE(back.find("\xEF\xBF\xBD"), std::string::npos) << text;
  }
  std::mt19937 random(3);
  for (int i = 0; i < 2000; ++i) {
    std::string s(random() % 20, '\0');
    for (char& c : s) c = static_cast<char>(random());
    EXPECT_NO_THROW(json::parse(json_string(s))) << json_string(s);
  }
}

TEST(JsonWriter, ObjectsAndArraysNestWithTheirCommas) {
  std::ostringstream out;
  {
    JsonWriter w(out);
    w.begin_object();
    w.member("a", 1).member("b", "x");
    w.key("c").begin_array().value(uint64_t{18446744073709551615u}).value(int64_t{-9}).begin_object().end_object();
    w.begin_array().end_array().null().value(true).end_array();
    w.key("d").raw_value("{\"e\":[1,2]}");
    w.end_object();
  }
  EXPECT_EQ(out.str(), "{\"a\":1,\"b\":\"x\",\"c\":[18446744073709551615,-9,{},[],null,true],\"d\":{\"e\":[1,2]}}");
  EXPECT_NO_THROW(json::parse(out.str()));
}

}  // namespace
}  // namespace asyncscope::trace
