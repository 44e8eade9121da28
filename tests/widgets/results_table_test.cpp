#include "widgets/results_table.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "widgets/imgui_context.h"

namespace asyncscope::widgets {
namespace {

TEST(ResultsFormatValue, SecondsScaleToReadableUnits) {
  EXPECT_EQ(FormatValue(0, "s"), "0 s");
  EXPECT_EQ(FormatValue(2.7e-6, "s"), "2.7 \xC2\xB5s");
  EXPECT_EQ(FormatValue(0.1836, "s"), "183.6 ms");
  EXPECT_EQ(FormatValue(1e-6, "s"), "1 \xC2\xB5s");
  EXPECT_EQ(FormatValue(1.5, "s"), "1.5 s");
  EXPECT_EQ(FormatValue(75, "s"), "75 s");
  EXPECT_EQ(FormatValue(12345.6, "s"), "12346 s");
  EXPECT_EQ(FormatValue(3.2e-8, "s"), "32 ns");
  EXPECT_EQ(FormatValue(0.123456789, "s"), "123.5 ms");
  EXPECT_EQ(FormatValue(-0.25, "s"), "-250 ms");
  // Rounding to 4 digits picks the unit: 0.99996 s is 1 s, not "1000 ms".
  EXPECT_EQ(FormatValue(0.99996, "s"), "1 s");
  EXPECT_EQ(FormatValue(0.00099996, "s"), "1 ms");
  // Microseconds are seconds too.
  EXPECT_EQ(FormatValue(12.5, "us"), "12.5 \xC2\xB5s");
  EXPECT_EQ(FormatValue(183600, "us"), "183.6 ms");
}

TEST(ResultsFormatValue, OtherUnitsKeepFourSignificantDigitsWithoutExponent) {
  EXPECT_EQ(FormatValue(0, ""), "0");
  EXPECT_EQ(FormatValue(1999540480, ""), "1999540480");
  EXPECT_EQ(FormatValue(-42, ""), "-42");
  EXPECT_EQ(FormatValue(1234.5678, ""), "1235");
  EXPECT_EQ(FormatValue(0.000123456, ""), "0.0001235");
  EXPECT_EQ(FormatValue(0.5, ""), "0.5");
  EXPECT_EQ(FormatValue(255.6, "MB"), "255.6 MB");
  EXPECT_EQ(FormatValue(255.64999, "MB"), "255.6 MB");
  EXPECT_EQ(FormatValue(2048, "MB"), "2048 MB");
  EXPECT_EQ(FormatValue(3.2, "x"), "3.2\xC3\x97");
  EXPECT_EQ(FormatValue(123.456, "GFLOP/s"), "123.5 GFLOP/s");
  EXPECT_EQ(FormatValue(1.0e12, "GFLOP/s"), "1000000000000 GFLOP/s");
  EXPECT_EQ(FormatValue(12.34, "%"), "12.34%");
}

TEST(ResultsFormatValue, NonFiniteIsADash) {
  const std::string dash = "\xE2\x80\x94";
  for (const char* unit : {"", "s", "us", "MB", "x"}) {
    EXPECT_EQ(FormatValue(std::numeric_limits<double>::quiet_NaN(), unit), dash);
    EXPECT_EQ(FormatValue(std::numeric_limits<double>::infinity(), unit), dash);
    EXPECT_EQ(FormatValue(-std::numeric_limits<double>::infinity(), unit), dash);
  }
}

TEST(ResultsFormatChange, PercentForModestChangesFactorForLargeOnes) {
  EXPECT_EQ(FormatChange(0.21, 1.0),
            "\xC3\x97"
            "0.21");
  EXPECT_EQ(FormatChange(5.12, 1.0), "+412%");
  EXPECT_EQ(FormatChange(0.65, 1.0), "-35%");
  EXPECT_EQ(FormatChange(1.045, 1.0), "+4.5%");
  EXPECT_EQ(FormatChange(20, 1.0),
            "\xC3\x97"
            "20");
  EXPECT_EQ(FormatChange(0, 3.0), "-100%");
  // No hint where it would not help.
  EXPECT_EQ(FormatChange(1.004, 1.0), "");
  EXPECT_EQ(FormatChange(1.0, 0.0), "");
  EXPECT_EQ(FormatChange(-1.0, 1.0), "");
  EXPECT_EQ(FormatChange(std::nan(""), 1.0), "");
  EXPECT_EQ(FormatChange(1.0, std::numeric_limits<double>::infinity()), "");
}

ResultColumn column(std::string title, std::vector<std::pair<std::string, double>> cells, bool current = false) {
  ResultColumn c;
  c.title = std::move(title);
  c.subtitle = "sync=none batch-size=1024 batches=100 workers=2 device=cpu";
  for (auto& [key, value] : cells) c.cells.push_back({key, "label of " + key, value, key == "time" ? "s" : "MB"});
  c.current = current;
  return c;
}

TEST(ResultsTable, RowsAreTheUnionOfKeysInOrderOfFirstAppearance) {
  const std::vector<ResultColumn> columns = {
      column("run 1", {{"a", 1}, {"b", 2}}),
      column("run 2", {{"b", 3}, {"c", 4}, {"a", 5}}),
      column("run 3", {{"d", 6}}),
  };
  EXPECT_EQ(ResultRowKeys(columns), (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_TRUE(ResultRowKeys({}).empty());
}

int frame_vertices(HeadlessContext& ctx, std::span<const ResultColumn> columns, ImVec2 size = ImVec2(0, 0)) {
  ctx.begin_frame();
  ResultsTable("results", columns, size);
  ImDrawData* data = ctx.end_frame();
  return data ? data->TotalVtxCount : 0;
}

TEST(ResultsTable, DrawsZeroOneAndFiveColumns) {
  HeadlessContext ctx(1000, 600);
  ctx.begin_frame();
  const int baseline = ctx.end_frame()->TotalVtxCount;

  EXPECT_GT(frame_vertices(ctx, {}), baseline);  // the "no results yet" hint

  const std::vector<ResultColumn> one = {column("run 1: memory-and-sync", {{"time", 0.1836}, {"rss", 255.6}}, true)};
  for (int frame = 0; frame < 2; ++frame) EXPECT_GT(frame_vertices(ctx, one), baseline);

  // Five runs with differing key sets, NaN and a missing cell, in a region too
  // narrow for them all (horizontal scroll).
  std::vector<ResultColumn> five;
  for (int i = 0; i < 5; ++i) {
    std::vector<std::pair<std::string, double>> cells = {{"time", 0.1836 * (i + 1)}, {"rss", 255.6 / (i + 1)}};
    if (i % 2) cells.push_back({"extra_" + std::to_string(i), 1999540480.0});
    if (i == 3) cells.push_back({"time_nan", std::nan("")});
    five.push_back(column("run " + std::to_string(i + 1) + ": memory-and-sync", cells, i == 4));
  }
  EXPECT_EQ(ResultRowKeys(five).size(), 5u);
  for (int frame = 0; frame < 3; ++frame) {
    EXPECT_GT(frame_vertices(ctx, five), baseline);
    EXPECT_GT(frame_vertices(ctx, five, ImVec2(300, 150)), baseline);
  }
  // Hovering a cell shows its tooltip without tripping anything.
  ImGui::GetIO().MousePos = ImVec2(200, 60);
  for (int frame = 0; frame < 3; ++frame) EXPECT_GT(frame_vertices(ctx, five), baseline);
}

}  // namespace
}  // namespace asyncscope::widgets
