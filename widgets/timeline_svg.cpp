#include "widgets/timeline_svg.h"

#include <imgui.h>

#include <algorithm>
#include <vector>

#include "widgets/canvas.h"
#include "widgets/colors.h"
#include "widgets/imgui_context.h"
#include "widgets/lanes/default_lanes.h"
#include "widgets/time_axis.h"
#include "widgets/timeline.h"

namespace asyncscope::widgets {
namespace {

// The app's font and size (app/gui/window.cpp at scale 1), so labels measure as they draw there.
constexpr const char* kFontFile = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
constexpr float kFontPx = 15.0f;

// Keeps the caller's ImGui context current again on the way out.
struct RestoreContext {
  ImGuiContext* saved = ImGui::GetCurrentContext();
  ~RestoreContext() { ImGui::SetCurrentContext(saved); }
};

}  // namespace

std::string timeline_svg(const trace::TraceModel& model, const trace::RunInsight* insight, const SvgOptions& o) {
  const RestoreContext restore;
  const float width = std::clamp(o.width, 320.0f, 16384.0f);
  HeadlessContext context(width, 1000.0f, kFontFile, kFontPx);
  context.begin_frame();
  const float line = ImGui::GetTextLineHeight();

  DefaultLanes lanes;
  lanes.update(model, insight);
  std::vector<Lane*> list;
  list.reserve(lanes.size());
  for (size_t i = 0; i < lanes.size(); ++i) list.push_back(&lanes[i]);

  TimelineState state;
  TimeView view = fit_view(model.end_time());
  if (o.from_ns >= 0) view.begin_ns = o.from_ns;
  if (o.to_ns > 0) view.end_ns = o.to_ns;
  state.view = sanitize_view(view);
  state.follow_live = false;

  // The lanes at their natural height (or the height asked for), under the caption.
  const float pad = 8.0f;
  const float caption = o.title.empty() ? 0.0f : line * 1.6f;
  float natural = line * (2.0f + (model.markers.empty() ? 0.0f : 1.2f));
  for (const Lane* lane : list) natural += lane->height_lines() * line;
  const float lanes_h = o.height > 0 ? std::max(o.height, line * 8.0f) : std::max(natural, line * 8.0f);
  const float notes_h = o.notes.empty() ? 0.0f : pad + line * 1.3f * static_cast<float>(o.notes.size());
  const float total_h = pad + caption + lanes_h + notes_h + pad;

  const ImVec2 min(pad, pad + caption);
  const ImVec2 max(width - pad, pad + caption + lanes_h);
  prepare_timeline_frame(model, list, state.view, min, max, line, state.frame);

  SvgCanvas canvas(width, total_h, theme::kBackground);
  canvas.raw("<title>" + xml_escape(o.title.empty() ? std::string("asyncscope timeline") : o.title) + "</title>\n");
  if (!o.title.empty()) canvas.text(ImVec2(pad, pad + line * 0.2f), theme::kText, o.title);
  draw_timeline_frame(canvas, model, state, false, -1.0f);
  float y = max.y + pad;
  for (const std::string& note : o.notes) {
    canvas.text(ImVec2(pad, y), theme::kText, note);
    y += line * 1.3f;
  }
  context.end_frame();
  return canvas.finish();
}

}  // namespace asyncscope::widgets
