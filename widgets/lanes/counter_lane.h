// The lane of one counter (queue depth, RSS, live bytes, GPU memory...): its
// samples reduced to a min/max per pixel column, so a spike survives any
// zoom, plotted against a round top value; its value at the mouse (or at the
// view's right edge) in the gutter. Label, unit and colour come from the
// counter's entry in the recorder layer's table (engine/trace_record/counters.h).
// Threading: UI thread only.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/trace_record/counters.h"
#include "engine/trace/insight.h"
#include "engine/trace/model.h"
#include "widgets/counter_plot.h"
#include "widgets/lane.h"

namespace asyncscope::widgets {

class CounterLane final : public Lane {
 public:
  // Plots the model's column named spec.name (nothing while the model has
  // none). Given the model's insight, a live-bytes lane's tooltip lists what
  // holds the memory at the mouse. Model and insight must outlive the lane.
  CounterLane(const trace::TraceModel& model, const trace::CounterSpec& spec,
              const trace::RunInsight* insight = nullptr);

  const trace::CounterSpec& spec() const noexcept { return spec_; }
  // The model's column of this counter, or -1.
  int column() const noexcept;
  // The prepared range: one entry per pixel column of the lanes' area.
  const std::vector<CounterColumn>& columns() const noexcept { return columns_; }

  float height_lines() const override;
  LaneHeader header(const LaneContext& ctx, int64_t cursor_t) const override;
  void prepare(const LaneContext& ctx) override;
  void draw(Canvas& draw, const LaneContext& ctx) const override;
  TimelineHit hit_test(const LaneContext& ctx, ImVec2 p) const override;
  void tooltip(const TimelineHit& hit) const override;
  bool scale(LaneScale& out) const override;
  bool compressible() const override { return true; }
  void set_scale_floor(int64_t top) override { scale_floor_ = top; }

 private:
  void holders_tooltip(int64_t t) const;
  void rss_tooltip(int64_t t) const;

  const trace::TraceModel* model_;
  const trace::RunInsight* insight_;
  trace::CounterSpec spec_;
  int64_t scale_floor_ = 0;
  std::vector<CounterColumn> columns_;
  int64_t top_ = 1;  // of the prepared range
};

}  // namespace asyncscope::widgets
