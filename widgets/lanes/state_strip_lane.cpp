#include "widgets/lanes/state_strip_lane.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "widgets/colors.h"
#include "widgets/time_axis.h"
#include "widgets/timeline_tooltip.h"
#include "engine/base/format.h"

namespace asyncscope::widgets {
namespace {

constexpr float kStripLines = 0.6f;

// What each state means, in a tooltip.
const char* meaning(trace::LaneState s) {
  switch (s) {
    case trace::LaneState::busy: return "running an op";
    case trace::LaneState::held: return "idle while ops are pending: they wait on inputs or another worker";
    case trace::LaneState::starved: return "idle, nothing pending: the frontend has not pushed the next op";
    case trace::LaneState::running: return "doing its own work between pushes and waits";
    case trace::LaneState::enqueuing: return "inside push: linking the op into its arrays, handing it on";
    case trace::LaneState::inflight_bound: return "blocked in push by the in-flight bound";
    default: return "blocked in a sync point";
  }
}

}  // namespace

StateStripLane::StateStripLane(const trace::TraceModel& model, const trace::RunInsight& insight, Of of, uint32_t index)
    : model_(&model), insight_(&insight), of_(of), index_(index) {}

const trace::LaneStates& StateStripLane::states() const noexcept {
  return of_ == Of::worker ? insight_->worker(index_) : insight_->frontend(index_);
}

float StateStripLane::height_lines() const { return kStripLines; }

LaneHeader StateStripLane::header(const LaneContext&, int64_t) const { return LaneHeader{{}, {}, theme::kTextDim}; }

void StateStripLane::prepare(const LaneContext& ctx) {
  runs_.clear();
  const TimeAxis& axis = ctx.axis;
  view_begin_ = static_cast<int64_t>(std::floor(axis.begin_ns));
  view_end_ = static_cast<int64_t>(std::ceil(axis.end_ns()));
  const trace::LaneStates& s = states();
  if (s.empty() || s.until() <= s.begin()) return;
  const int64_t lo = s.begin(), hi = s.until();
  const auto add = [this](float x0, float x1, trace::LaneState state) {
    if (!runs_.empty() && runs_.back().state == state && runs_.back().x1 >= x0) {
      runs_.back().x1 = x1;
    } else {
      runs_.push_back(Run{x0, x1, state});
    }
  };
  // Whole pixel columns from the first classified one to the last.
  const double x_lo = std::max<double>(ctx.x0, axis.to_px(static_cast<double>(lo)));
  const double x_hi = std::min<double>(ctx.x1, axis.to_px(static_cast<double>(hi)));
  if (x_hi <= x_lo) return;
  double x = std::floor(x_lo);
  size_t k = s.segment_at(std::max(lo, static_cast<int64_t>(axis.to_ns(x))));
  // The running sums at the left edge of the column, carried from one mixed
  // column to the next (columns are walked left to right).
  size_t hint = k;
  bool have_left = false;
  trace::StateTimes left;
  while (x < x_hi) {
    const int64_t a = std::clamp(static_cast<int64_t>(std::floor(axis.to_ns(x))), lo, hi);
    const int64_t b = std::clamp(static_cast<int64_t>(std::floor(axis.to_ns(x + 1))), lo, hi);
    while (k + 1 < s.size() && s.segment_end(k) <= a) ++k;
    if (s.segment_end(k) >= b) {
      // This column and the ones after it that lie wholly in segment k.
      const double end_px = std::min<double>(x_hi, axis.to_px(static_cast<double>(s.segment_end(k))));
      const double next = std::max(x + 1, std::floor(end_px));
      add(static_cast<float>(std::max(x, x_lo)), static_cast<float>(std::min(next, x_hi)), s.segment_state(k));
      x = next;
      have_left = false;
      continue;
    }
    if (!have_left) left = s.cumulative(a, hint);
    const trace::StateTimes right = s.cumulative(b, hint);
    size_t best = 0;
    int64_t best_ns = -1;
    for (size_t i = 0; i < right.ns.size(); ++i) {
      const int64_t ns = right.ns[i] - left.ns[i];
      if (ns > best_ns) {
        best = i;
        best_ns = ns;
      }
    }
    add(static_cast<float>(std::max(x, x_lo)), static_cast<float>(std::min(x + 1, x_hi)),
        static_cast<trace::LaneState>(best));
    left = right;
    have_left = true;
    k = hint;
    x += 1;
  }
}

void StateStripLane::draw(Canvas& draw, const LaneContext& ctx) const {
  const float y0 = ctx.y0 + 1.0f;
  const float y1 = ctx.y1 - 1.0f;
  for (const Run& r : runs_) draw.rect_filled(ImVec2(r.x0, y0), ImVec2(r.x1, y1), StateColor(r.state));
}

TimelineHit StateStripLane::hit_test(const LaneContext& ctx, ImVec2 p) const {
  TimelineHit hit;
  const int64_t t = std::llround(ctx.axis.to_ns(p.x));
  if (!states().state_at(t)) return hit;
  hit.kind = TimelineHit::Kind::other;
  hit.click = TimelineHit::Click::keep;
  hit.begin_ns = view_begin_;
  hit.end_ns = view_end_;
  return hit;
}

void StateStripLane::tooltip(const TimelineHit& hit) const {
  const trace::LaneStates& s = states();
  const std::optional<trace::LaneState> at = s.state_at(hit.t);
  if (!at) return;
  const std::string& name =
      of_ == Of::worker ? model_->workers[index_].name : model_->frontends[index_].name;
  ImGui::BeginTooltip();
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(StateColor(*at)), "%s", trace::to_string(*at));
  ImGui::SameLine();
  ImGui::TextUnformatted(("  " + name).c_str());
  ImGui::TextDisabled("%s", meaning(*at));
  const size_t k = s.segment_at(hit.t);
  tooltip_row("time", tooltip_time_range(s.segment_begin(k), s.segment_end(k)));
  ImGui::Separator();
  const trace::StateTimes in_view = s.time_in(hit.begin_ns, hit.end_ns);
  const int64_t total = in_view.total();
  ImGui::TextDisabled("in view (%s)", format_duration(total).c_str());
  if (total > 0) {
    for (int i = 0; i < trace::kLaneStateCount; ++i) {
      const auto state = static_cast<trace::LaneState>(i);
      if (in_view[state] == 0) continue;
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(StateColor(state)), "%s", trace::to_string(state));
      ImGui::SameLine(ImGui::GetFontSize() * 12.0f);
      ImGui::Text("%5.1f%%  %s", 100.0 * static_cast<double>(in_view[state]) / static_cast<double>(total),
                  format_duration(in_view[state]).c_str());
    }
  }
  ImGui::EndTooltip();
}

}  // namespace asyncscope::widgets
