#include "widgets/counter_plot.h"
#include "engine/base/format.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace asyncscope::widgets {
namespace {

trace::CounterSample sample(int64_t t, int64_t v, int column = 0) {
  trace::CounterSample s;
  s.t = t;
  s.values[column] = v;
  return s;
}

TEST(CounterPlot, OneSampleSpikeSurvivesZoomingOut) {
  // 10 s at 1 kHz, flat at 100 except one sample at 5 GB.
  std::vector<trace::CounterSample> samples;
  for (int64_t i = 0; i < 10'000; ++i) samples.push_back(sample(i * 1'000'000, i == 6'789 ? 5'000'000'000 : 100));
  std::vector<CounterColumn> columns;
  const TimeAxis axis = TimeAxis::make(TimeView{0, 10'000'000'000}, 0.0f, 300.0f);
  reduce_counter_columns(samples, 0, axis, columns);
  ASSERT_EQ(columns.size(), 300u);
  int spikes = 0;
  for (const CounterColumn& c : columns) {
    ASSERT_TRUE(c.valid);
    EXPECT_EQ(c.min, 100);
    spikes += c.max == 5'000'000'000 ? 1 : 0;
  }
  EXPECT_GE(spikes, 1);
  EXPECT_LE(spikes, 2);  // its own column, and the next one which starts with it held
}

TEST(CounterPlot, ColumnsMatchABruteForceReduction) {
  std::mt19937_64 rng(11);
  std::vector<CounterColumn> columns;
  for (int round = 0; round < 200; ++round) {
    std::vector<trace::CounterSample> samples;
    int64_t t = std::uniform_int_distribution<int64_t>(0, 5000)(rng);
    const int n = std::uniform_int_distribution<int>(0, 3000)(rng);
    for (int i = 0; i < n; ++i) {
      t += std::uniform_int_distribution<int64_t>(0, 3000)(rng);
      samples.push_back(sample(t, std::uniform_int_distribution<int64_t>(-50, 1'000'000)(rng), 2));
    }
    const int64_t end = t + 10'000;
    const int64_t a = std::uniform_int_distribution<int64_t>(-end / 4, end)(rng);
    const TimeView view{a, a + std::uniform_int_distribution<int64_t>(kMinViewSpanNs, end)(rng)};
    const TimeAxis axis = TimeAxis::make(view, 30.0f, std::uniform_real_distribution<float>(10, 900)(rng));
    reduce_counter_columns(samples, 2, axis, columns);
    ASSERT_EQ(columns.size(), static_cast<size_t>(std::ceil(axis.width)));
    for (size_t c = 0; c < columns.size(); ++c) {
      const auto b = static_cast<int64_t>(std::ceil(axis.to_ns(axis.x0 + static_cast<double>(c))));
      const auto e = static_cast<int64_t>(std::ceil(axis.to_ns(axis.x0 + static_cast<double>(c) + 1.0)));
      bool valid = false;
      int64_t lo = 0, hi = 0;
      const auto take = [&](int64_t v) {
        lo = valid ? std::min(lo, v) : v;
        hi = valid ? std::max(hi, v) : v;
        valid = true;
      };
      for (size_t i = 0; i < samples.size(); ++i) {
        const bool held = samples[i].t < b && (i + 1 == samples.size() || samples[i + 1].t >= b);
        if (held || (samples[i].t >= b && samples[i].t < e)) take(samples[i].values[2]);
      }
      if (!samples.empty() && b > samples.back().t) valid = false;  // after the last sample: no data
      ASSERT_EQ(columns[c].valid, valid) << "column " << c;
      if (valid) {
        EXPECT_EQ(columns[c].min, lo) << "column " << c;
        EXPECT_EQ(columns[c].max, hi) << "column " << c;
      }
    }
  }
}

TEST(CounterPlot, NoDataBeforeTheFirstOrAfterTheLastSample) {
  const std::vector<trace::CounterSample> samples = {sample(1000, 5), sample(2000, 7)};
  std::vector<CounterColumn> columns;
  reduce_counter_columns(samples, 0, TimeAxis::make(TimeView{0, 4000}, 0.0f, 4.0f), columns);
  ASSERT_EQ(columns.size(), 4u);
  EXPECT_FALSE(columns[0].valid);
  EXPECT_TRUE(columns[1].valid);
  EXPECT_EQ(columns[1].max, 5);
  EXPECT_TRUE(columns[2].valid);
  EXPECT_EQ(columns[2].max, 7);
  EXPECT_FALSE(columns[3].valid);
  reduce_counter_columns({}, 0, TimeAxis::make(TimeView{0, 4000}, 0.0f, 4.0f), columns);
  EXPECT_FALSE(columns[2].valid);
  reduce_counter_columns(samples, trace::kMaxCounters, TimeAxis::make(TimeView{0, 4000}, 0.0f, 4.0f), columns);
  EXPECT_FALSE(columns[2].valid);
}

TEST(CounterPlot, ValueAtHoldsTheLastSample) {
  const std::vector<trace::CounterSample> samples = {sample(1000, 5), sample(2000, 7), sample(3000, 9)};
  int64_t v = 0;
  EXPECT_FALSE(counter_value_at(samples, 0, 999, v));
  ASSERT_TRUE(counter_value_at(samples, 0, 1000, v));
  EXPECT_EQ(v, 5);
  ASSERT_TRUE(counter_value_at(samples, 0, 2999, v));
  EXPECT_EQ(v, 7);
  ASSERT_TRUE(counter_value_at(samples, 0, 3000, v));
  EXPECT_EQ(v, 9);
  EXPECT_FALSE(counter_value_at(samples, 0, 3001, v));
}

TEST(CounterPlot, ScaleTopsAreRound) {
  EXPECT_EQ(nice_ceiling(0, CounterUnit::count), 1);
  EXPECT_EQ(nice_ceiling(7, CounterUnit::count), 10);
  EXPECT_EQ(nice_ceiling(130, CounterUnit::count), 200);
  EXPECT_EQ(nice_ceiling(4001, CounterUnit::count), 5000);
  EXPECT_EQ(nice_ceiling(int64_t{1536} * 1024 * 1024, CounterUnit::bytes), int64_t{2} * 1024 * 1024 * 1024);
  EXPECT_EQ(nice_ceiling(int64_t{300} * 1024 * 1024, CounterUnit::bytes), int64_t{500} * 1024 * 1024);
  EXPECT_EQ(format_counter(int64_t{500} * 1024 * 1024, CounterUnit::bytes), "500 MB");
  EXPECT_EQ(format_counter(12345, CounterUnit::count), "12,345");
  EXPECT_EQ(format_counter(-3, CounterUnit::count), "-3");
}

// A share (the app's render CPU) is stored in thousandths and read as a
// percentage, against a fixed 100% unless it went over.
TEST(CounterPlot, SharesReadAsPercentagesOutOfAHundred) {
  EXPECT_EQ(format_counter(375, CounterUnit::permille), "37.5%");
  EXPECT_EQ(format_counter(0, CounterUnit::permille), "0.0%");
  EXPECT_EQ(format_counter(7, CounterUnit::permille), "0.7%");
  EXPECT_EQ(format_counter(1000, CounterUnit::permille), "100.0%");
  EXPECT_EQ(format_counter(12345, CounterUnit::permille), "1,234.5%");
  EXPECT_EQ(format_counter(-5, CounterUnit::permille), "-0.5%");
  EXPECT_EQ(nice_ceiling(0, CounterUnit::permille), 1000);
  EXPECT_EQ(nice_ceiling(37, CounterUnit::permille), 1000);
  EXPECT_EQ(nice_ceiling(1000, CounterUnit::permille), 1000);
  EXPECT_EQ(nice_ceiling(1012, CounterUnit::permille), 2000);
}

}  // namespace
}  // namespace asyncscope::widgets
