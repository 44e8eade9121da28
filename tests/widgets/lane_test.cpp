// The lane interface as the timeline core uses it: a lane of the caller's own
// (not one of lanes/) is laid out with the model's default lanes, prepared,
// hit-tested, drawn, given its tooltip and clicks, and found by the
// selection when it says it shows an op.
#include "widgets/lane.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "support/timeline_fixtures.h"
#include "widgets/imgui_context.h"
#include "widgets/timeline.h"

namespace asyncscope::widgets {
namespace {

using Kind = TimelineHit::Kind;

// Marks time intervals; claims to show the execution of op `shows_op` over
// its first interval.
class IntervalLane final : public Lane {
 public:
  explicit IntervalLane(std::vector<std::pair<int64_t, int64_t>> intervals, int64_t shows_op = -1)
      : intervals_(std::move(intervals)), shows_op_(shows_op) {}

  int prepares = 0;
  mutable int tooltips = 0;
  mutable int draws = 0;
  std::vector<size_t> visible;  // prepared: the intervals in view

  float height_lines() const override { return 2.0f; }
  LaneHeader header(const LaneContext&, int64_t) const override {
    return LaneHeader{"intervals", std::to_string(intervals_.size()) + " marked", theme::kText};
  }
  void prepare(const LaneContext& ctx) override {
    ++prepares;
    visible.clear();
    for (size_t i = 0; i < intervals_.size(); ++i) {
      if (intervals_[i].second >= ctx.axis.begin_ns && intervals_[i].first <= ctx.axis.end_ns()) visible.push_back(i);
    }
  }
  void draw(Canvas& draw, const LaneContext& ctx) const override {
    ++draws;
    for (size_t i : visible) {
      draw.rect_filled(ImVec2(ctx.axis.px(intervals_[i].first), ctx.y0 + 2),
                       ImVec2(ctx.axis.px(intervals_[i].second), ctx.y1 - 2), theme::kMarker);
    }
  }
  TimelineHit hit_test(const LaneContext& ctx, ImVec2 p) const override {
    TimelineHit hit;
    const double t = ctx.axis.to_ns(p.x);
    for (size_t i : visible) {
      if (t >= static_cast<double>(intervals_[i].first) && t < static_cast<double>(intervals_[i].second)) {
        hit.kind = Kind::other;
        hit.click = TimelineHit::Click::keep;
        hit.zoomable = true;
        hit.first = static_cast<uint32_t>(i);
        hit.count = 1;
        hit.begin_ns = intervals_[i].first;
        hit.end_ns = intervals_[i].second;
      }
    }
    return hit;
  }
  void tooltip(const TimelineHit& hit) const override {
    ++tooltips;
    ImGui::BeginTooltip();
    ImGui::Text("interval %u", hit.first);
    ImGui::EndTooltip();
  }
  bool locate(const LaneContext& ctx, uint32_t op, OpPart part, ImRect& out) const override {
    if (part != OpPart::execution || static_cast<int64_t>(op) != shows_op_) return false;
    out = ImRect(ctx.axis.px(intervals_[0].first), ctx.y0 + 1, ctx.axis.px(intervals_[0].second), ctx.y1 - 1);
    return true;
  }

 private:
  std::vector<std::pair<int64_t, int64_t>> intervals_;
  int64_t shows_op_;
};

// Frames of a timeline with the model's default lanes and one more below.
struct Harness {
  HeadlessContext ctx{1280, 720};
  TimelineState state;
  IntervalLane extra{{{5000, 9000}, {20000, 30000}}};

  int frame(const trace::TraceModel& m, ImVec2 mouse = ImVec2(-1, -1), bool down = false) {
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = mouse;
    io.MouseDown[0] = down;
    ctx.begin_frame();
    if (BeginTimeline("timeline", m, state)) {
      TimelineDefaultLanes(m, state.lanes);
      TimelineLane(extra);
      EndTimeline();
    }
    return ctx.end_frame()->TotalVtxCount;
  }
  ImVec2 at(int lane, int64_t t) const { return point_in(state.frame, lane, t); }
};

TEST(Lane, ACallersLaneIsLaidOutPreparedHitTestedAndDrawn) {
  const trace::TraceModel m = small_model();
  Harness h;
  FitTimeline(h.state, m);
  EXPECT_GT(h.frame(m), 0);
  const TimelineFrame& f = h.state.frame;
  ASSERT_EQ(f.lanes.size(), 8u);  // the seven default lanes, then ours
  EXPECT_EQ(f.index_of(&h.extra), 7);
  EXPECT_EQ(f.lanes[7].y0, f.lanes[6].y1);
  EXPECT_LT(f.lanes[7].y0, f.lanes[7].y1);
  EXPECT_EQ(h.extra.prepares, 1);
  EXPECT_EQ(h.extra.draws, 1);
  EXPECT_EQ(h.extra.visible, (std::vector<size_t>{0, 1}));

  // Hover: its hit, with the lane and time filled in by the core, and its tooltip.
  h.frame(m, h.at(7, 25000));
  EXPECT_EQ(h.state.hover.kind, Kind::other);
  EXPECT_EQ(h.state.hover.lane, 7);
  EXPECT_EQ(h.state.hover.first, 1u);
  EXPECT_NEAR(static_cast<double>(h.state.hover.t), 25000, f.axis.ns_per_px);
  EXPECT_EQ(h.extra.tooltips, 1);
  EXPECT_EQ(hit_test(f, h.at(7, 15000)).kind, Kind::none);

  // A click keeps the selection, as the lane asked; a double-click zooms to the interval.
  h.state.selected_op = 2;
  const ImVec2 on = h.at(7, 25000);
  for (bool down : {true, false}) h.frame(m, on, down);
  EXPECT_EQ(h.state.selected_op, 2);
  for (bool down : {true, false}) h.frame(m, on, down);
  EXPECT_LE(h.state.view.begin_ns, 20000);
  EXPECT_GE(h.state.view.end_ns, 30000);
  EXPECT_LT(h.state.view.span(), 15000);
  // Zoomed in, the first interval left the view: prepared again, only the second.
  h.frame(m);
  EXPECT_EQ(h.extra.visible, (std::vector<size_t>{1}));
}

TEST(Lane, TheSelectionFindsAnOpOnACallersLane) {
  const trace::TraceModel m = small_model();
  PreparedFrame p = prepared(m, TimeView{0, 60000});
  IntervalLane shows_op0({{2000, 12000}}, 0);
  std::vector<Lane*> lanes = lane_list(p.lanes);
  lanes.insert(lanes.begin(), &shows_op0);
  prepare_timeline_frame(m, lanes, TimeView{0, 60000}, ImVec2(0, 0), ImVec2(1200, 500), 13.0f, p.f);
  ImRect where;
  EXPECT_EQ(p.f.find_op(0, OpPart::execution, where), 0);  // the first lane that shows it
  EXPECT_FLOAT_EQ(where.Min.x, p.f.axis.px(2000));
  EXPECT_EQ(p.f.find_op(2, OpPart::execution, where), p.f.index_of(p.lanes.worker_lane(0)));
  EXPECT_EQ(p.f.find_op(0, OpPart::launch, where), -1);

  // Selected, op 0 draws its outline on our lane.
  Harness h;
  h.extra = IntervalLane({{2000, 12000}}, 0);
  FitTimeline(h.state, m);
  const int unselected = h.frame(m);
  h.state.selected_op = 0;
  EXPECT_GT(h.frame(m), unselected);
}

TEST(Lane, LabelsFitTheirBoxOrAreLeftOut) {
  HeadlessContext ctx(800, 600);
  ctx.begin_frame();
  LaneContext lane{TimeAxis::make(TimeView{0, 1000}, 100, 600), 100, 700, 50, 70, 13};
  ImGuiCanvas draw(ImGui::GetWindowDrawList());
  EXPECT_TRUE(label_in_box(draw, lane, 200, 400, 50, 70, theme::kText, "a label"));
  EXPECT_FALSE(label_in_box(draw, lane, 200, 203, 50, 70, theme::kText, "a label"));
  // A box that starts left of the lanes keeps its label at their visible edge.
  EXPECT_TRUE(label_in_box(draw, lane, -500, 300, 50, 70, theme::kText, "a label"));
  // A box right of the lanes has no room.
  EXPECT_FALSE(label_in_box(draw, lane, 710, 900, 50, 70, theme::kText, "a label"));
  ctx.end_frame();
}

}  // namespace
}  // namespace asyncscope::widgets
