// What the lanes of op spans share: one trace::WorkerLane's spans (op
// executions, or on a launch lane the ops' launches) folded for the visible
// range, drawn coloured by op kind, hit-tested, and a tooltip for one op or a
// folded box. The CPU worker, GPU stream and GPU launch lanes are this with
// their own part of the op and look. An execution lane also draws its help
// spans (time the worker spent on parts of another worker's op), hatched in
// that op's colour.
// Threading: UI thread only.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "engine/trace/model.h"
#include "widgets/lane.h"
#include "widgets/lod.h"

namespace asyncscope::widgets {

class OpSpanLane : public Lane {
 public:
  // The model's worker lane this draws.
  uint32_t worker() const noexcept { return worker_; }
  // The prepared spans: boxes whose `first` is a position in the worker lane's ops.
  const std::vector<LodBox>& boxes() const noexcept { return boxes_; }

  float height_lines() const override;
  LaneHeader header(const LaneContext& ctx, int64_t cursor_t) const override;
  void prepare(const LaneContext& ctx) override;
  void draw(Canvas& draw, const LaneContext& ctx) const override;
  TimelineHit hit_test(const LaneContext& ctx, ImVec2 p) const override;
  void tooltip(const TimelineHit& hit) const override;
  bool locate(const LaneContext& ctx, uint32_t op, OpPart part, ImRect& out) const override;

 protected:
  // How a kind of span lane differs.
  struct Style {
    OpPart part;         // what of an op its spans are: execution or launch
    bool muted;          // spans drawn as muted boxes outlined in the op's colour
    const char* things;  // what a folded box counts ("ops", "launches")
  };
  // `worker` indexes model.workers; the model must outlive the lane.
  OpSpanLane(const trace::TraceModel& model, uint32_t worker, Style style);

 private:
  const trace::WorkerLane& lane() const noexcept { return model_->workers[worker_]; }
  void folded_tooltip(const TimelineHit& hit) const;
  void help_tooltip(const TimelineHit& hit) const;
  // Positions in lane().helps of the help spans overlapping [a, b).
  std::pair<size_t, size_t> helps_in(double a, double b) const;
  void draw_helps(Canvas& draw, const LaneContext& ctx, float y0, float y1) const;

  const trace::TraceModel* model_;
  uint32_t worker_;
  Style style_;
  std::vector<LodBox> boxes_;
};

}  // namespace asyncscope::widgets
