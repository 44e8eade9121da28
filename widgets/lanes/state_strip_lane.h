// A thin strip under a worker or frontend lane: what that lane was doing at
// every moment, as classified by trace::RunInsight (a worker busy, held or
// starved; a frontend running or waiting, per sync kind), one colour per
// state (StateColor). A pixel column that holds several states shows the one
// that took most of its time. Hovering names the state at the mouse and sums
// the lane's states over the view. Drawn only up to the insight's frontier:
// while a run goes on, what is not final yet stays blank.
// Threading: UI thread only.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/trace/insight.h"
#include "engine/trace/model.h"
#include "widgets/lane.h"

namespace asyncscope::widgets {

class StateStripLane final : public Lane {
 public:
  enum class Of : uint8_t { worker, frontend };
  // The states of model.workers[index] or model.frontends[index] in
  // `insight`. Model and insight must outlive the lane.
  StateStripLane(const trace::TraceModel& model, const trace::RunInsight& insight, Of of, uint32_t index);

  // A run of pixel columns of one state, from prepare.
  struct Run {
    float x0 = 0, x1 = 0;
    trace::LaneState state = trace::LaneState::busy;
  };
  const std::vector<Run>& runs() const noexcept { return runs_; }
  const trace::LaneStates& states() const noexcept;

  float height_lines() const override;
  LaneHeader header(const LaneContext& ctx, int64_t cursor_t) const override;
  bool named() const override { return false; }
  void prepare(const LaneContext& ctx) override;
  void draw(Canvas& draw, const LaneContext& ctx) const override;
  TimelineHit hit_test(const LaneContext& ctx, ImVec2 p) const override;
  void tooltip(const TimelineHit& hit) const override;

 private:
  const trace::TraceModel* model_;
  const trace::RunInsight* insight_;
  Of of_;
  uint32_t index_;
  std::vector<Run> runs_;
  int64_t view_begin_ = 0, view_end_ = 0;  // of the prepared range
};

}  // namespace asyncscope::widgets
