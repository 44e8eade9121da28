#include "widgets/timeline.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>

#include "widgets/colors.h"
#include "widgets/counter_plot.h"
#include "engine/base/format.h"

namespace asyncscope::widgets {
namespace {

// Heights of the rows above the lanes, in text line heights.
constexpr float kRulerLines = 1.7f;
constexpr float kMarkerLines = 1.3f;

float gutter_width(float width, float line) { return std::min(line * 9.5f, width * 0.35f); }

// Lane names (and their second lines) left of the lanes; above them, the
// view's span, LIVE while following, or how many events the recorder dropped.
void draw_gutter(Canvas& draw, const trace::TraceModel& model, const TimelineFrame& f, const TimelineState& state,
                 bool live) {
  const float x = f.min.x + 8.0f;
  const float line = f.line_height;
  const ImVec2 p(x, f.min.y + (line * kRulerLines - line) * 0.5f);
  if (model.dropped > 0) {
    draw.text(p, theme::kError, (std::string("dropped ").append(format_count(model.dropped))).c_str());
  } else if (live && state.follow_live) {
    draw.circle_filled(ImVec2(p.x + 4.0f, p.y + line * 0.5f), 4.0f, theme::kError);
    draw.text(ImVec2(p.x + 13.0f, p.y), theme::kText, "LIVE");
  } else {
    draw.text(p, theme::kTextDim, (std::string("span ").append(format_duration(state.view.span()))).c_str());
  }
  const int64_t cursor_t = state.hover.lane >= 0 ? state.hover.t : trace::kNoTime;
  for (size_t i = 0; i < f.lanes.size(); ++i) {
    const PlacedLane& lane = f.lanes[i];
    const float h = lane.y1 - lane.y0;
    const bool two_lines = h >= line * 2.2f;
    const float y = two_lines ? (lane.y0 + lane.y1) * 0.5f - line : (lane.y0 + lane.y1 - line) * 0.5f;
    const LaneHeader header = lane.lane->header(f.context(i), cursor_t);
    if (!header.name.empty()) {
      draw.text(ImVec2(x, y), header.color, header.name);
    }
    if (two_lines && !header.detail.empty()) draw.text(ImVec2(x, y + line), theme::kTextDim, header.detail.c_str());
  }
}

}  // namespace

MarkerTag place_marker_tag(float x, float width, float min_x, float max_x) noexcept {
  if (x + width > max_x && x - width >= min_x) return MarkerTag{x - width, x, true};
  return MarkerTag{x, x + width, false};
}

namespace {

void draw_markers(Canvas& draw, const trace::TraceModel& model, const TimelineFrame& f) {
  float tag_end = -1e9f;
  const float y0 = f.ruler_y1 - f.line_height * kMarkerLines;
  for (const trace::Marker& m : model.markers) {
    const double xd = f.axis.to_px(static_cast<double>(m.t));
    if (xd < f.gutter_x1 - 200.0 || xd > f.max.x) continue;
    const float x = std::floor(static_cast<float>(xd)) + 0.5f;
    draw.line(ImVec2(x, y0), ImVec2(x, f.max.y), with_alpha(theme::kMarker, 120));
    std::string label(model.name(m.name));
    if (m.value != 0) label.append(" ").append(std::to_string(m.value));
    const ImVec2 size = ImGui::CalcTextSize(label.c_str());
    const MarkerTag tag = place_marker_tag(x, size.x + 8.0f, f.gutter_x1, f.max.x);
    if (tag.x0 < tag_end) continue;  // keep tags readable: skip one that would overlap the previous
    const ImVec2 a(tag.x0, y0 + 1.0f);
    const ImVec2 b(tag.x1, f.ruler_y1 - 2.0f);
    draw.rect_filled(a, b, with_alpha(theme::kMarker, 45), 3.0f,
                        tag.left ? ImDrawFlags_RoundCornersLeft : ImDrawFlags_RoundCornersRight);
    draw.text(ImVec2(tag.x0 + 4.0f, (a.y + b.y - size.y) * 0.5f), theme::kMarker, label.c_str());
    tag_end = b.x + 4.0f;
  }
}

// The selected op: its spans outlined (a GPU op has two: launch and GPU
// execution), arrows enqueue -> first span (-> GPU execution), and arrows
// from the ops it depended on to the start of its execution. Each part is
// found on whichever lane shows it.
void draw_selection(Canvas& draw, const trace::TraceModel& model, const TimelineFrame& f, TimelineState& state) {
  const auto sel = static_cast<uint32_t>(state.selected_op);
  const trace::OpInfo& op = model.ops[sel];
  if (state.deps_of != state.selected_op || state.deps_data != model.ops.data()) {
    previous_writers(model, sel, state.deps);
    state.deps_of = state.selected_op;
    state.deps_data = model.ops.data();
  }
  const auto left_mid = [](const ImRect& r) { return ImVec2(r.Min.x, (r.Min.y + r.Max.y) * 0.5f); };
  ImRect exec, launch, enqueue;
  const bool on_lane = f.find_op(sel, OpPart::execution, exec) >= 0;
  const bool launched = f.find_op(sel, OpPart::launch, launch) >= 0;
  for (uint32_t d : state.deps) {
    ImRect dep;
    if (f.find_op(d, OpPart::execution, dep) < 0) continue;
    draw.rect(dep.Min, dep.Max, theme::kDependency, 0.0f, 1.5f);
    if (on_lane || launched) {
      draw_arrow(draw, ImVec2(dep.Max.x, (dep.Min.y + dep.Max.y) * 0.5f), left_mid(on_lane ? exec : launch),
                 theme::kDependency);
    }
  }
  if (launched && on_lane) {
    draw_arrow(draw, ImVec2(std::min(launch.Max.x, exec.Min.x), launch.Max.y), left_mid(exec), theme::kFlow);
  }
  if (f.find_op(sel, OpPart::enqueue, enqueue) >= 0) {
    draw.rect_filled(enqueue.Min, enqueue.Max, theme::kSelection);
    if (on_lane || launched) {
      const ImVec2 from((enqueue.Min.x + enqueue.Max.x) * 0.5f, enqueue.Max.y);
      const ImVec2 to = left_mid(launched ? launch : exec);
      draw_arrow(draw, from, to, theme::kFlow);
      const int64_t first = launched ? op.launch_start : op.start;
      const std::string wait = std::string("queued ").append(format_duration(first - op.enqueue));
      const ImVec2 size = ImGui::CalcTextSize(wait.c_str());
      if (to.x - from.x > size.x + 40.0f) {
        draw.text(ImVec2((from.x + to.x - size.x) * 0.5f, (from.y + to.y) * 0.5f - size.y), theme::kFlow,
                      wait.c_str());
      }
    }
  }
  for (const auto& [r, shown] : {std::tuple(exec, on_lane), std::tuple(launch, launched)}) {
    if (shown) {
      draw.rect(ImVec2(r.Min.x - 1.0f, r.Min.y - 1.0f), ImVec2(r.Max.x + 1.0f, r.Max.y + 1.0f), theme::kSelection,
                0.0f, 2.0f);
    }
  }
}

// Draws a prepared frame: backgrounds, ruler, lanes, selection, markers, the
// cursor (at cursor_x, if >= 0) and the gutter.
void draw_frame(Canvas& draw, const trace::TraceModel& model, TimelineState& state, bool live, float cursor_x) {
  const TimelineFrame& f = state.frame;
  const ImRect bb(f.min, f.max);
  const float line = f.line_height;
  draw.rect_filled(bb.Min, bb.Max, theme::kBackground);
  draw.rect_filled(bb.Min, ImVec2(f.gutter_x1, bb.Max.y), theme::kGutter);
  for (size_t i = 0; i < f.lanes.size(); ++i) {
    const PlacedLane& lane = f.lanes[i];
    if (i % 2 == 1) draw.rect_filled(ImVec2(f.gutter_x1, lane.y0), ImVec2(bb.Max.x, lane.y1), theme::kLaneAlt);
    draw.line(ImVec2(bb.Min.x, lane.y1 - 0.5f), ImVec2(bb.Max.x, lane.y1 - 0.5f), theme::kSeparator);
  }
  const float ruler_bottom = bb.Min.y + line * kRulerLines;
  draw.push_clip(ImVec2(f.gutter_x1, bb.Min.y), bb.Max, true);
  draw_time_ruler(draw, f.axis, ImVec2(f.gutter_x1, bb.Min.y), ImVec2(bb.Max.x, ruler_bottom), bb.Max.y);
  draw.push_clip(ImVec2(f.gutter_x1, f.ruler_y1), bb.Max, true);
  for (size_t i = 0; i < f.lanes.size(); ++i) {
    if (f.in_view(i)) f.lanes[i].lane->draw(draw, f.context(i));
  }
  if (f.lanes.empty()) {
    const char* text = "No trace yet - run a demo";
    const ImVec2 size = ImGui::CalcTextSize(text);
    draw.text(ImVec2((f.gutter_x1 + bb.Max.x - size.x) * 0.5f, (f.ruler_y1 + bb.Max.y - size.y) * 0.5f),
                  theme::kTextDim, text);
  }
  if (state.selected_op >= 0) draw_selection(draw, model, f, state);
  draw.pop_clip();
  draw_markers(draw, model, f);
  if (cursor_x >= f.gutter_x1) {
    draw_time_cursor(draw, f.axis, cursor_x, ImVec2(f.gutter_x1, bb.Min.y), ImVec2(bb.Max.x, ruler_bottom), bb.Max.y);
  }
  draw.pop_clip();
  draw.line(ImVec2(f.gutter_x1 - 0.5f, bb.Min.y), ImVec2(f.gutter_x1 - 0.5f, bb.Max.y), theme::kSeparator);
  draw.push_clip(bb.Min, ImVec2(f.gutter_x1 - 1.0f, bb.Max.y), true);
  draw_gutter(draw, model, f, state, live);
  draw.pop_clip();
}

// The timeline between BeginTimeline and EndTimeline. One at a time, on the
// UI thread, like ImGui's own current window.
struct Open {
  bool active = false;
  const trace::TraceModel* model = nullptr;
  TimelineState* state = nullptr;
  bool live = false;
  ImRect bb;
  float line = 0;
  bool hovered = false;
  bool held = false;
  bool released = false;
  bool dragged = false;
  TimeView before;
  std::vector<Lane*> lanes;  // reused frame to frame
};
Open g_open;

}  // namespace

void draw_timeline_frame(Canvas& canvas, const trace::TraceModel& model, TimelineState& state, bool live,
                         float cursor_x) {
  draw_frame(canvas, model, state, live, cursor_x);
}

LaneContext TimelineFrame::context(size_t i) const noexcept {
  return LaneContext{axis, gutter_x1, max.x, lanes[i].y0, lanes[i].y1, line_height, highlight_line};
}

int TimelineFrame::index_of(const Lane* lane) const noexcept {
  for (size_t i = 0; i < lanes.size(); ++i) {
    if (lanes[i].lane == lane) return static_cast<int>(i);
  }
  return -1;
}

int TimelineFrame::find_op(uint32_t op, OpPart part, ImRect& out) const {
  for (size_t i = 0; i < lanes.size(); ++i) {
    if (lanes[i].lane->locate(context(i), op, part, out)) return static_cast<int>(i);
  }
  return -1;
}

void prepare_timeline_frame(const trace::TraceModel& model, std::span<Lane* const> lanes, const TimeView& view,
                            ImVec2 min, ImVec2 max, float line_height, TimelineFrame& f) {
  f.min = min;
  f.max = max;
  f.line_height = line_height;
  f.gutter_x1 = min.x + gutter_width(max.x - min.x, line_height);
  f.ruler_y1 = min.y + line_height * (kRulerLines + (model.markers.empty() ? 0.0f : kMarkerLines));
  f.axis = TimeAxis::make(view, f.gutter_x1, max.x - f.gutter_x1);

  constexpr float kMinScale = 0.6f;  // below it, lane names overlap
  float total = 0, plots = 0;
  for (const Lane* lane : lanes) {
    total += lane->height_lines() * line_height;
    if (lane->compressible()) plots += lane->height_lines() * line_height;
  }
  const float avail = max.y - f.ruler_y1;
  const float scale = total > 0 ? std::clamp(avail / total, kMinScale, 3.0f) : 1.0f;
  // Too many lanes even at the smallest scale (runs stacked in a small
  // window): the plots give up height first, down to a third of theirs.
  float plot_scale = scale;
  if (total * scale > avail && plots > 0) {
    plot_scale = std::clamp((avail - (total - plots) * scale) / plots, 0.35f, scale);
  }
  // However squeezed, a named lane keeps one line of height, so that its
  // name in the gutter never meets its neighbours' (a strip without a name,
  // a quarter of a line): when the scaled lanes still do not fit, each gives
  // up what it has above that floor, all in proportion.
  std::vector<float>& heights = f.heights;
  std::vector<float>& floors = f.floors;
  heights.resize(lanes.size());
  floors.resize(lanes.size());
  float sum = 0, floor_sum = 0;
  for (size_t i = 0; i < lanes.size(); ++i) {
    const float s = lanes[i]->compressible() ? plot_scale : scale;
    const float natural = lanes[i]->height_lines() * line_height * s;
    floors[i] = lanes[i]->named() ? std::ceil(line_height) : std::min(natural, line_height * 0.25f);
    heights[i] = std::max(floors[i], natural);
    sum += heights[i];
    floor_sum += floors[i];
  }
  if (sum > avail) {
    const float excess = sum - floor_sum;
    const float keep = excess > 0 && avail > floor_sum ? (avail - floor_sum) / excess : 0.0f;
    for (size_t i = 0; i < lanes.size(); ++i) heights[i] = floors[i] + (heights[i] - floors[i]) * keep;
  }
  f.lanes.resize(lanes.size());
  float y = f.ruler_y1;
  for (size_t i = 0; i < lanes.size(); ++i) {
    PlacedLane& placed = f.lanes[i];
    placed.lane = lanes[i];
    placed.y0 = y;
    placed.y1 = y = std::round(y + heights[i]);
    if (f.in_view(i)) lanes[i]->prepare(f.context(i));  // lanes clipped away have nothing to prepare
  }
}

TimelineHit hit_test(const TimelineFrame& f, ImVec2 p) {
  TimelineHit hit;
  if (p.x < f.gutter_x1 || p.x >= f.max.x || p.y < f.ruler_y1 || p.y >= f.max.y) return hit;
  const int64_t t = std::llround(f.axis.to_ns(p.x));
  for (size_t i = 0; i < f.lanes.size(); ++i) {
    if (p.y >= f.lanes[i].y0 && p.y < f.lanes[i].y1) {
      hit = f.lanes[i].lane->hit_test(f.context(i), p);
      hit.lane = static_cast<int>(i);
      break;
    }
  }
  hit.t = t;
  return hit;
}

void previous_writers(const trace::TraceModel& model, uint32_t op, std::vector<uint32_t>& out) {
  out.clear();
  if (op >= model.ops.size() || !model.ops[op].known()) return;
  const trace::OpInfo& target = model.ops[op];
  std::vector<uint64_t> wanted(model.reads_of(target), model.reads_of(target) + target.num_reads + target.num_writes);
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  for (uint32_t i = op; i-- > 0 && !wanted.empty();) {
    const trace::OpInfo& o = model.ops[i];
    if (!o.known() || o.num_writes == 0) continue;
    const uint64_t* writes = model.writes_of(o);
    for (uint16_t w = 0; w < o.num_writes; ++w) {
      auto it = std::lower_bound(wanted.begin(), wanted.end(), writes[w]);
      if (it == wanted.end() || *it != writes[w]) continue;
      wanted.erase(it);
      if (out.empty() || out.back() != i) out.push_back(i);
    }
  }
}

void FitTimeline(TimelineState& state, const trace::TraceModel& model) {
  state.view = fit_view(model.end_time());
}

bool BeginTimeline(const char* id, const trace::TraceModel& model, TimelineState& state,
                   const TimelineOptions& options) {
  IM_ASSERT(!g_open.active && "BeginTimeline: the previous timeline was not ended");
  ImGuiWindow* window = ImGui::GetCurrentWindow();
  if (window->SkipItems) return false;
  ImGui::PushID(id);
  const float line = ImGui::GetTextLineHeight();
  float height = options.height > 0 ? options.height : ImGui::GetContentRegionAvail().y;
  if (options.title != nullptr) {
    ImGui::TextUnformatted(options.title);
    height -= ImGui::GetTextLineHeightWithSpacing();
  }
  const ImVec2 pos = window->DC.CursorPos;
  const ImRect bb(pos, ImVec2(pos.x + std::max(ImGui::GetContentRegionAvail().x, line * 24.0f),
                              pos.y + std::max(height, line * 8.0f)));
  ImGui::ItemSize(bb);
  const ImGuiID item = ImGui::GetID("##timeline");
  if (!ImGui::ItemAdd(bb, item)) {
    ImGui::PopID();
    return false;
  }
  Open& o = g_open;
  o.active = true;
  o.model = &model;
  o.state = &state;
  o.live = options.live;
  o.bb = bb;
  o.line = line;
  o.lanes.clear();
  o.hovered = false;
  o.held = false;
  o.released = ImGui::ButtonBehavior(bb, item, &o.hovered, &o.held,
                                     ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonMiddle);
  ImGui::SetItemUsingMouseWheel();
  const ImGuiIO& io = ImGui::GetIO();

  if (state.selected_op >= static_cast<int64_t>(model.ops.size())) state.selected_op = -1;
  const int64_t run_end = model.end_time();
  state.view = sanitize_view(state.view);  // possibly set from outside: repaired, never clamped to this run
  if (options.live && state.follow_live) state.view = sanitize_view(follow_live(state.view, run_end));
  o.before = state.view;

  // Input changes the view before the frame is prepared, so what is drawn and
  // hit-tested is what the user asked for this frame.
  const float lanes_x0 = bb.Min.x + gutter_width(bb.GetWidth(), line);
  const float lanes_w = bb.Max.x - lanes_x0;
  o.dragged = io.MouseDragMaxDistanceSqr[0] > io.MouseDragThreshold * io.MouseDragThreshold;
  if (o.hovered && io.MouseWheel != 0.0f) {
    const TimeAxis axis = TimeAxis::make(state.view, lanes_x0, lanes_w);
    state.view = zoom_around(state.view, axis.to_ns(std::max(io.MousePos.x, lanes_x0)), std::pow(0.8, io.MouseWheel));
  }
  const float pan = (o.held && (ImGui::IsMouseDragging(0) || ImGui::IsMouseDragging(2)) ? io.MouseDelta.x : 0.0f) +
                    (o.hovered ? io.MouseWheelH * lanes_w * 0.1f : 0.0f);
  if (pan != 0.0f) {
    state.view = pan_by_px(state.view, pan, lanes_w);
    state.follow_live = false;
  }
  if (!(state.view == o.before)) state.view = clamp_view(state.view, run_end);
  return true;
}

void TimelineLane(Lane& lane) {
  IM_ASSERT(g_open.active && "TimelineLane: call it between BeginTimeline and EndTimeline");
  g_open.lanes.push_back(&lane);
}

void TimelineDefaultLanes(const trace::TraceModel& model, DefaultLanes& lanes, const trace::RunInsight* insight) {
  lanes.update(model, insight);
  for (size_t i = 0; i < lanes.size(); ++i) TimelineLane(lanes[i]);
}

bool EndTimeline() {
  IM_ASSERT(g_open.active && "EndTimeline: no BeginTimeline that returned true");
  Open& o = g_open;
  o.active = false;
  const trace::TraceModel& model = *o.model;
  TimelineState& state = *o.state;
  const ImGuiIO& io = ImGui::GetIO();
  const ImRect& bb = o.bb;
  const int64_t run_end = model.end_time();
  state.frame.highlight_line = state.highlight_line < static_cast<int64_t>(model.source_lines.size()) ? state.highlight_line : -1;
  prepare_timeline_frame(model, o.lanes, state.view, bb.Min, bb.Max, o.line, state.frame);
  const bool panning = o.held && (ImGui::IsMouseDragging(0) || ImGui::IsMouseDragging(2));
  state.hover = o.hovered && !panning ? hit_test(state.frame, io.MousePos) : TimelineHit{};

  using Click = TimelineHit::Click;
  const TimelineHit& hover = state.hover;
  if (o.released && io.MouseReleased[0] && !o.dragged && io.MousePos.x >= state.frame.gutter_x1) {
    if (hover.click == Click::select_op) {
      state.selected_op = hover.op;
    } else if (hover.click == Click::clear) {
      state.selected_op = -1;
    }
  }
  if (o.hovered && ImGui::IsMouseDoubleClicked(0) && hover.zoomable) {
    state.view = clamp_view(view_around(hover.begin_ns, hover.end_ns), run_end);
    state.follow_live = false;
    prepare_timeline_frame(model, o.lanes, state.view, bb.Min, bb.Max, o.line, state.frame);
    state.hover = hit_test(state.frame, io.MousePos);
  }

  ImGuiCanvas canvas(ImGui::GetWindowDrawList());
  draw_frame(canvas, model, state, o.live, o.hovered && !panning ? io.MousePos.x : -1.0f);
  if (state.hover.kind != TimelineHit::Kind::none) {
    state.frame.lanes[static_cast<size_t>(state.hover.lane)].lane->tooltip(state.hover);
  }
  ImGui::PopID();
  return !(state.view == o.before);
}

bool Timeline(const char* id, const trace::TraceModel& model, TimelineState& state, const TimelineOptions& options) {
  if (!BeginTimeline(id, model, state, options)) return false;
  TimelineDefaultLanes(model, state.lanes, state.insight);
  return EndTimeline();
}

void ShareCounterScales(TimelineState& a, TimelineState& b) {
  for (const trace::CounterSpec& spec : trace::kCounters) {
    Lane* la = a.lanes.counter_lane(spec.name);
    Lane* lb = b.lanes.counter_lane(spec.name);
    LaneScale sa, sb;
    const bool ha = la != nullptr && la->scale(sa);
    const bool hb = lb != nullptr && lb->scale(sb);
    if (!ha || !hb) {
      if (la != nullptr) la->set_scale_floor(0);
      if (lb != nullptr) lb->set_scale_floor(0);
      continue;
    }
    const int64_t top = nice_ceiling(std::max(sa.max, sb.max), spec.unit);
    la->set_scale_floor(top);
    lb->set_scale_floor(top);
  }
}

std::optional<int64_t> MarkerTime(const trace::TraceModel& model, std::string_view marker) {
  for (const trace::Marker& m : model.markers) {
    if (model.name(m.name) == marker) return m.t;
  }
  return std::nullopt;
}

}  // namespace asyncscope::widgets
