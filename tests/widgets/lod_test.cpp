#include "widgets/lod.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace asyncscope::widgets {
namespace {

struct Span {
  int64_t start;
  int64_t end;
};

// Start-sorted, non-overlapping spans with widths and gaps over many scales:
// zero-length, sub-pixel, a few pixels, and wide.
std::vector<Span> random_lane(std::mt19937_64& rng, size_t n) {
  std::vector<Span> spans;
  int64_t t = std::uniform_int_distribution<int64_t>(0, 1000)(rng);
  const auto pick = [&](int64_t scale) {
    const int64_t power = std::uniform_int_distribution<int64_t>(0, scale)(rng);
    int64_t limit = 1;
    for (int64_t i = 0; i < power; ++i) limit *= 10;
    return std::uniform_int_distribution<int64_t>(0, limit)(rng);
  };
  for (size_t i = 0; i < n; ++i) {
    t += pick(6);
    const int64_t w = pick(7);
    spans.push_back({t, t + w});
    t += w;
  }
  return spans;
}

void fold(const std::vector<Span>& s, const TimeAxis& axis, std::vector<LodBox>& out) {
  fold_spans(
      s.size(), [&](size_t i) { return s[i].start; }, [&](size_t i) { return s[i].end; }, axis, kFoldPx, out);
}

TEST(Lod, FoldingPreservesCountsAndDropsNothingVisible) {
  std::mt19937_64 rng(7);
  std::vector<LodBox> boxes;
  for (int round = 0; round < 400; ++round) {
    const std::vector<Span> spans = random_lane(rng, std::uniform_int_distribution<size_t>(0, 3000)(rng));
    const int64_t total = spans.empty() ? 1 : spans.back().end + 1;
    const int64_t a = std::uniform_int_distribution<int64_t>(-total / 4, total)(rng);
    const int64_t b = a + std::uniform_int_distribution<int64_t>(kMinViewSpanNs, total + kMinViewSpanNs)(rng);
    const TimeAxis axis = TimeAxis::make(TimeView{a, b}, 50.0f, std::uniform_real_distribution<float>(100, 2500)(rng));
    fold(spans, axis, boxes);

    // Exactly the spans that touch the visible range, each in one box, in order.
    std::vector<size_t> visible;
    for (size_t i = 0; i < spans.size(); ++i) {
      if (static_cast<double>(spans[i].end) >= std::floor(axis.begin_ns) &&
          static_cast<double>(spans[i].start) <= std::ceil(axis.end_ns())) {
        visible.push_back(i);
      }
    }
    size_t counted = 0;
    for (size_t k = 0; k < boxes.size(); ++k) {
      const LodBox& box = boxes[k];
      ASSERT_GT(box.count, 0u);
      if (k > 0) {
        EXPECT_EQ(boxes[k - 1].first + boxes[k - 1].count, box.first) << "boxes hold consecutive spans";
        EXPECT_LE(boxes[k - 1].end_ns, box.begin_ns) << "boxes never overlap";
      }
      for (uint32_t i = box.first; i < box.first + box.count; ++i) {
        EXPECT_LE(box.begin_ns, spans[i].start) << "a box covers its spans";
        EXPECT_GE(box.end_ns, spans[i].end);
        const double width_px = static_cast<double>(spans[i].end - spans[i].start) / axis.ns_per_px;
        if (width_px >= kFoldPx + 1e-6) {
          EXPECT_EQ(box.count, 1u) << "a span " << width_px << " px wide was merged";
        }
      }
      EXPECT_FLOAT_EQ(box.x0, static_cast<float>(axis.to_px(static_cast<double>(box.begin_ns))));
      counted += box.count;
    }
    ASSERT_EQ(counted, visible.size());
    if (!visible.empty()) {
      EXPECT_EQ(boxes.front().first, visible.front());
    }
  }
}

TEST(Lod, ZoomedOutMillionSpansFoldToAFewBoxes) {
  std::vector<Span> spans;
  for (int64_t i = 0; i < 1'000'000; ++i) spans.push_back({i * 10, i * 10 + 7});
  std::vector<LodBox> boxes;
  fold(spans, TimeAxis::make(TimeView{0, 10'000'000}, 0.0f, 1000.0f), boxes);
  ASSERT_EQ(boxes.size(), 1u);
  EXPECT_EQ(boxes[0].count, 1'000'000u);
  // Zoomed in, every span is its own box.
  fold(spans, TimeAxis::make(TimeView{5'000'000, 5'000'200}, 0.0f, 1000.0f), boxes);
  ASSERT_EQ(boxes.size(), 21u);
  for (const LodBox& box : boxes) EXPECT_EQ(box.count, 1u);
}

TEST(Lod, WideSpansSplitFoldedRuns) {
  // tiny, tiny, wide, tiny: the wide one stands alone between two folds.
  const std::vector<Span> spans = {{0, 1}, {2, 3}, {10, 500}, {501, 502}, {503, 504}};
  std::vector<LodBox> boxes;
  fold(spans, TimeAxis::make(TimeView{0, 1000}, 0.0f, 100.0f), boxes);  // 10 ns per px
  ASSERT_EQ(boxes.size(), 3u);
  EXPECT_EQ(boxes[0].count, 2u);
  EXPECT_EQ(boxes[1].count, 1u);
  EXPECT_EQ(boxes[1].first, 2u);
  EXPECT_EQ(boxes[2].count, 2u);
}

TEST(Lod, InstantsFoldToOneBoxPerPixelColumn) {
  std::mt19937_64 rng(3);
  std::vector<int64_t> times(50'000);
  for (int64_t& t : times) t = std::uniform_int_distribution<int64_t>(0, 10'000'000)(rng);
  std::sort(times.begin(), times.end());
  std::vector<LodBox> boxes;
  for (const TimeView view : {TimeView{0, 10'000'000}, TimeView{4'000'000, 4'010'000}, TimeView{-5, 20'000'000}}) {
    const TimeAxis axis = TimeAxis::make(view, 10.0f, 800.0f);
    fold_instants(times.size(), [&](size_t i) { return times[i]; }, axis, boxes);
    size_t visible = 0;
    for (int64_t t : times) visible += t >= view.begin_ns && t <= view.end_ns ? 1 : 0;
    size_t counted = 0;
    for (size_t k = 0; k < boxes.size(); ++k) {
      counted += boxes[k].count;
      if (k > 0) {
        EXPECT_LT(std::floor(boxes[k - 1].x0), std::floor(boxes[k].x0)) << "one box per column";
      }
      EXPECT_EQ(times[boxes[k].first], boxes[k].begin_ns);
      EXPECT_EQ(times[boxes[k].first + boxes[k].count - 1], boxes[k].end_ns);
    }
    EXPECT_EQ(counted, visible);
    EXPECT_LE(boxes.size(), 801u);
  }
}

TEST(Lod, EmptyLaneFoldsToNothing) {
  std::vector<LodBox> boxes = {LodBox{}};
  fold_spans(
      0, [](size_t) { return int64_t{0}; }, [](size_t) { return int64_t{0}; }, TimeAxis::make(TimeView{}, 0, 100),
      kFoldPx, boxes);
  EXPECT_TRUE(boxes.empty());
}

TEST(Lod, BoxAtFindsTheBoxUnderThePoint) {
  std::vector<LodBox> boxes = {{10, 20, 0, 0, 0, 1}, {20.5f, 20.7f, 0, 0, 1, 5}, {40, 80, 0, 0, 6, 1}};
  EXPECT_EQ(box_at(boxes, 15, 3)->first, 0u);
  EXPECT_EQ(box_at(boxes, 21.2f, 3)->first, 1u);  // narrow boxes count as 1 px wide
  EXPECT_EQ(box_at(boxes, 38, 3)->first, 6u);     // within the slop
  EXPECT_EQ(box_at(boxes, 30, 3), nullptr);
  EXPECT_EQ(box_at(boxes, 90, 3), nullptr);
  EXPECT_EQ(box_at({}, 10, 3), nullptr);
}

TEST(Lod, ModelLanesFoldThroughTheirIndexLists) {
  trace::TraceModel model;
  model.ops.resize(4);
  for (size_t i = 0; i < 4; ++i) {
    model.ops[i].id = 1 + i;
    model.ops[i].enqueue = static_cast<int64_t>(i) * 10;
    model.ops[i].start = 100 + static_cast<int64_t>(i) * 200;
    model.ops[i].end = model.ops[i].start + 150;
  }
  model.workers.push_back(trace::WorkerLane{"w", trace::DeviceKind::cpu, 0, 0, trace::SpanKind::execute, {0, 2, 3}, {}});
  model.frontends.push_back(trace::FrontendLane{"f", {0, 1, 2, 3}, {0}, {}});
  model.syncs.push_back(trace::SyncSpan{50, 900, 3, 4, 0, trace::SyncKind::wait_all});
  const TimeAxis axis = TimeAxis::make(TimeView{0, 1000}, 0.0f, 1000.0f);
  std::vector<LodBox> boxes;
  fold_worker_lane(model, model.workers[0], axis, boxes);
  ASSERT_EQ(boxes.size(), 3u);
  EXPECT_EQ(boxes[1].begin_ns, 500);
  fold_sync_lane(model, model.frontends[0], axis, boxes);
  ASSERT_EQ(boxes.size(), 1u);
  EXPECT_EQ(boxes[0].end_ns, 900);
  fold_enqueue_ticks(model, model.frontends[0], axis, boxes);
  EXPECT_EQ(boxes.size(), 4u);
}

// A launch lane folds its ops' launch spans, not their GPU executions.
TEST(Lod, LaunchLanesFoldLaunchSpans) {
  trace::TraceModel model;
  model.ops.resize(3);
  for (size_t i = 0; i < 3; ++i) {
    trace::OpInfo& op = model.ops[i];
    op.id = 1 + i;
    op.launch_start = static_cast<int64_t>(i) * 100;
    op.launch_end = op.launch_start + 50;
    op.start = 5000 + static_cast<int64_t>(i) * 1000;  // far outside the view
    op.end = op.start + 900;
  }
  model.workers.push_back(trace::WorkerLane{"cuda:0 launch 0", trace::DeviceKind::cuda, 0, 0, trace::SpanKind::launch, {0, 1, 2}, {}});
  const TimeAxis axis = TimeAxis::make(TimeView{0, 1000}, 0.0f, 1000.0f);
  std::vector<LodBox> boxes;
  fold_worker_lane(model, model.workers[0], axis, boxes);
  ASSERT_EQ(boxes.size(), 3u);
  EXPECT_EQ(boxes[1].begin_ns, 100);
  EXPECT_EQ(boxes[2].end_ns, 250);
}

}  // namespace
}  // namespace asyncscope::widgets
