#include "widgets/time_axis.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace asyncscope::widgets {
namespace {

TimeView random_view(std::mt19937_64& rng) {
  const int64_t span = std::uniform_int_distribution<int64_t>(kMinViewSpanNs, 100'000'000'000)(rng);
  const int64_t begin = std::uniform_int_distribution<int64_t>(-span / 2, 200'000'000'000)(rng);
  return TimeView{begin, begin + span};
}

TEST(TimeAxis, TransformsRoundTrip) {
  std::mt19937_64 rng(1);
  for (int i = 0; i < 1000; ++i) {
    const TimeView view = random_view(rng);
    const float width = std::uniform_real_distribution<float>(50, 4000)(rng);
    const TimeAxis axis = TimeAxis::make(view, 123.0f, width);
    EXPECT_NEAR(axis.to_px(static_cast<double>(view.begin_ns)), 123.0, 1e-6);
    EXPECT_NEAR(axis.to_px(static_cast<double>(view.end_ns)), 123.0 + width, 1e-3);
    const double x = std::uniform_real_distribution<double>(0, width)(rng) + 123.0;
    EXPECT_NEAR(axis.to_px(axis.to_ns(x)), x, 1e-6);
    const auto t = static_cast<double>(std::uniform_int_distribution<int64_t>(view.begin_ns, view.end_ns)(rng));
    EXPECT_NEAR(axis.to_ns(axis.to_px(t)), t, std::max(1e-3, std::abs(t) * 1e-12));
  }
}

TEST(TimeAxis, PxClampsFarAwayTimesNearTheAxis) {
  const TimeAxis axis = TimeAxis::make(TimeView{0, 1000}, 100.0f, 1000.0f);
  EXPECT_FLOAT_EQ(axis.px(500), 600.0f);
  EXPECT_LT(axis.px(1e15), 1200.0f);
  EXPECT_GT(axis.px(-1e15), 0.0f);
}

TEST(TimeAxis, ZoomKeepsThePointUnderTheCursorFixed) {
  std::mt19937_64 rng(2);
  for (int i = 0; i < 2000; ++i) {
    const TimeView view = random_view(rng);
    const float width = 1200.0f;
    const TimeAxis before = TimeAxis::make(view, 0.0f, width);
    const double x = std::uniform_real_distribution<double>(0, width)(rng);
    const double factor = std::pow(0.8, std::uniform_real_distribution<double>(-6, 6)(rng));
    const TimeView zoomed = zoom_around(view, before.to_ns(x), factor);
    const TimeAxis after = TimeAxis::make(zoomed, 0.0f, width);
    // Views are whole ns: the anchor may move by the rounding, never more.
    const double tolerance = std::max(0.01, 1.0 / after.ns_per_px);
    EXPECT_NEAR(after.to_px(before.to_ns(x)), x, tolerance) << "view " << view.begin_ns << ".." << view.end_ns;
    EXPECT_GE(zoomed.span(), kMinViewSpanNs);
    EXPECT_LE(zoomed.span(), kMaxViewSpanNs);
  }
}

TEST(TimeAxis, ZoomStopsAtTheSpanLimits) {
  const TimeView in = zoom_around(TimeView{1000, 2000}, 1500, 1e-6);
  EXPECT_EQ(in.span(), kMinViewSpanNs);
  EXPECT_LE(in.begin_ns, 1500);
  EXPECT_GE(in.end_ns, 1500);
  EXPECT_EQ(zoom_around(TimeView{0, 1'000'000'000'000}, 0, 1e6).span(), kMaxViewSpanNs);
}

TEST(TimeAxis, PanMovesContentWithTheMouse) {
  const TimeView view{1'000'000, 2'000'000};
  const TimeView panned = pan_by_px(view, 100.0, 1000.0f);
  EXPECT_EQ(panned.span(), view.span());
  // Dragging right by a tenth of the width shows earlier times.
  EXPECT_EQ(panned.begin_ns, 900'000);
  EXPECT_EQ(pan_by_px(panned, -100.0, 1000.0f), view);
}

TEST(TimeAxis, ClampRepairsViewsAndKeepsTheRunInSight) {
  EXPECT_EQ(clamp_view(TimeView{500, 100}, 10'000).span(), kMinViewSpanNs);  // reversed
  const TimeView far = clamp_view(TimeView{1'000'000'000, 1'000'001'000}, 10'000);
  EXPECT_LE(far.begin_ns, 10'000 - far.span() / 2);
  const TimeView early = clamp_view(TimeView{-1'000'000, -999'000}, 10'000);
  EXPECT_GE(early.begin_ns, -early.span() / 2);
  const TimeView ok{2'000, 3'000};
  EXPECT_EQ(clamp_view(ok, 10'000), ok);
}

TEST(TimeAxis, SanitizeOnlyRepairs) {
  const TimeView far{1'000'000'000'000, 1'000'000'001'000};
  EXPECT_EQ(sanitize_view(far), far);
  EXPECT_EQ(sanitize_view(TimeView{10, 5}).span(), kMinViewSpanNs);
  EXPECT_EQ(sanitize_view(TimeView{INT64_MIN, INT64_MAX}).span(), kMaxViewSpanNs);
  EXPECT_EQ(sanitize_view(TimeView{0, 10}).span(), kMinViewSpanNs);
}

TEST(TimeAxis, FitShowsTheWholeRun) {
  const TimeView v = fit_view(5'000'000);
  EXPECT_LT(v.begin_ns, 0);
  EXPECT_GT(v.end_ns, 5'000'000);
  EXPECT_LT(v.span(), 5'500'000);
  EXPECT_GT(fit_view(0).span(), 0);
}

TEST(TimeAxis, FollowLiveGrowsAWholeRunViewAndSlidesAZoomedOne) {
  const TimeView grown = follow_live(TimeView{-10, 1'000'000}, 5'000'000);
  EXPECT_EQ(grown.begin_ns, -10);
  EXPECT_GT(grown.end_ns, 5'000'000);
  const TimeView slid = follow_live(TimeView{1'000'000, 2'000'000}, 9'000'000);
  EXPECT_EQ(slid.span(), 1'000'000);
  EXPECT_GT(slid.end_ns, 9'000'000);
  EXPECT_LT(slid.begin_ns, 9'000'000);
}

TEST(TimeAxis, NiceStepsFollowTheOneTwoFiveSeries) {
  for (double ns_per_px : {0.01, 0.3, 1.0, 7.0, 123.0, 4.5e4, 9.9e6, 3e9}) {
    for (double min_px : {1.0, 50.0, 100.0}) {
      const int64_t step = nice_step_ns(ns_per_px, min_px);
      int64_t mantissa = step;
      while (mantissa % 10 == 0) mantissa /= 10;
      EXPECT_TRUE(mantissa == 1 || mantissa == 2 || mantissa == 5) << step;
      EXPECT_GE(static_cast<double>(step), std::max(1.0, ns_per_px * min_px) - 1e-9);
      // The previous value of the series would be too dense.
      const int64_t previous = mantissa == 2 ? step / 2 : mantissa == 5 ? step * 2 / 5 : step / 2;
      if (step > 1) {
        EXPECT_LT(static_cast<double>(previous), ns_per_px * min_px) << step;
      }
    }
  }
}

TEST(TimeAxis, TickLabelsPickTheUnitFromTheStep) {
  EXPECT_EQ(format_time_label(0, 1'000'000), "0 ms");
  EXPECT_EQ(format_time_label(1'200'000, 200'000), "1.2 ms");
  EXPECT_EQ(format_time_label(350, 50), "350 ns");
  EXPECT_EQ(format_time_label(1'500, 100), "1.5 \u00b5s");
  EXPECT_EQ(format_time_label(2'000'000'000, 1'000'000'000), "2 s");
  EXPECT_EQ(format_time_label(300'000'000, 100'000'000), "0.3 s");
  EXPECT_EQ(format_time_label(-400, 1000), "0 \u00b5s");  // no "-0"
  // A ruler's labels share the unit of its largest time.
  EXPECT_EQ(format_time_label(10'960'000, 20'000, 11'000'000), "10.96 ms");
  EXPECT_EQ(format_time_label(0, 20'000, 11'000'000), "0.00 ms");
  EXPECT_EQ(format_time_label(120'000, 20'000, 150'000), "120 \u00b5s");
  EXPECT_EQ(format_time(2'500'000'100, 100), "2.5000001 s");
  EXPECT_EQ(format_time(1'234'567, 1000), "1.235 ms");
}

}  // namespace
}  // namespace asyncscope::widgets
