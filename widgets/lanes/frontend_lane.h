// The lane of one frontend thread: a tick per op it enqueued (denser columns
// drawn taller and brighter) above, the sync waits that blocked it as
// hatched spans below. Narrow waits fold into counted boxes, ticks into one
// per pixel column.
// Threading: UI thread only.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/trace/model.h"
#include "widgets/lane.h"
#include "widgets/lod.h"

namespace asyncscope::widgets {

class FrontendLane final : public Lane {
 public:
  // `frontend` indexes model.frontends. The model must outlive the lane.
  FrontendLane(const trace::TraceModel& model, uint32_t frontend);

  uint32_t frontend() const noexcept { return frontend_; }
  // The prepared range: sync waits (first = position in the lane's syncs)
  // and enqueue ticks (first = position in the lane's enqueues).
  const std::vector<LodBox>& waits() const noexcept { return waits_; }
  const std::vector<LodBox>& ticks() const noexcept { return ticks_; }
  // Ticks above this y, waits below.
  static float split_y(const LaneContext& ctx) noexcept { return ctx.y0 + (ctx.y1 - ctx.y0) * 0.4f; }

  float height_lines() const override;
  LaneHeader header(const LaneContext& ctx, int64_t cursor_t) const override;
  void prepare(const LaneContext& ctx) override;
  void draw(Canvas& draw, const LaneContext& ctx) const override;
  TimelineHit hit_test(const LaneContext& ctx, ImVec2 p) const override;
  void tooltip(const TimelineHit& hit) const override;
  // Its part is the enqueue: the tick's column, from the top of the lane to the split.
  bool locate(const LaneContext& ctx, uint32_t op, OpPart part, ImRect& out) const override;

 private:
  const trace::FrontendLane& lane() const noexcept { return model_->frontends[frontend_]; }

  const trace::TraceModel* model_;
  uint32_t frontend_;
  std::vector<LodBox> waits_;
  std::vector<LodBox> ticks_;
};

}  // namespace asyncscope::widgets
