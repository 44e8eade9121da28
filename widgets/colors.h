// The widgets' dark theme: background, text and lane colours, a stable and
// distinct colour per op kind, the op-kind legend, and the shapes the widgets
// share (hatching for blocked time, dependency arrows).
// Threading: UI thread only.
#pragma once

#include <imgui.h>

#include <string_view>

#include "widgets/canvas.h"
#include "engine/trace/insight.h"
#include "engine/trace/model.h"

namespace asyncscope::widgets {

namespace theme {
inline constexpr ImU32 kBackground = IM_COL32(21, 24, 30, 255);
inline constexpr ImU32 kLaneAlt = IM_COL32(25, 29, 36, 255);
inline constexpr ImU32 kGutter = IM_COL32(16, 19, 24, 255);
inline constexpr ImU32 kRuler = IM_COL32(28, 32, 40, 255);
inline constexpr ImU32 kSeparator = IM_COL32(44, 50, 61, 255);
inline constexpr ImU32 kGrid = IM_COL32(255, 255, 255, 16);
inline constexpr ImU32 kCrosshair = IM_COL32(255, 255, 255, 70);
inline constexpr ImU32 kText = IM_COL32(218, 222, 228, 255);
inline constexpr ImU32 kTextDim = IM_COL32(136, 146, 160, 255);
inline constexpr ImU32 kTextDark = IM_COL32(14, 17, 22, 255);
inline constexpr ImU32 kTick = IM_COL32(196, 205, 216, 255);
inline constexpr ImU32 kSync = IM_COL32(232, 110, 120, 255);
inline constexpr ImU32 kSyncFill = IM_COL32(232, 110, 120, 38);
inline constexpr ImU32 kSyncHatch = IM_COL32(232, 110, 120, 105);
// Counter colours are in the recorder layer's counter table (engine/trace_record/counters.h).
inline constexpr ImU32 kMarker = IM_COL32(198, 132, 232, 255);
inline constexpr ImU32 kSelection = IM_COL32(255, 255, 255, 255);
inline constexpr ImU32 kDependency = IM_COL32(255, 214, 102, 235);
inline constexpr ImU32 kFlow = IM_COL32(196, 205, 216, 190);
inline constexpr ImU32 kError = IM_COL32(255, 92, 92, 255);
}  // namespace theme

// The colours of the lanes' states (engine/trace/insight.h), from the
// Okabe-Ito palette, which stays distinct with every common colour-vision
// deficiency: busy bluish green, held orange, starved reddish purple; a
// frontend running sky blue, waiting vermillion, held by the in-flight
// bound yellow, enqueuing blue.
ImU32 StateColor(trace::LaneState state) noexcept;

// Colour arithmetic on packed ImU32 (IM_COL32 layout).
ImU32 with_alpha(ImU32 color, int alpha) noexcept;
// Multiplies RGB by `factor` (< 1 darkens, > 1 lightens; clamped).
ImU32 scale_rgb(ImU32 color, float factor) noexcept;
// Linear mix: t = 0 gives a, t = 1 gives b.
ImU32 mix(ImU32 a, ImU32 b, float t) noexcept;
// Dark or light text, whichever reads better on `fill`.
ImU32 text_on(ImU32 fill) noexcept;
// The muted version used for internal ops and folded boxes.
ImU32 subdued(ImU32 color) noexcept;

// Diagonal hatching over [a, b]: time the frontend spent blocked.
void draw_hatch(Canvas& draw, ImVec2 a, ImVec2 b, ImU32 color);
// A curved arrow from a to b (an arc when both are on one row) with its head at b.
void draw_arrow(Canvas& draw, ImVec2 a, ImVec2 b, ImU32 color);

// Stable colour per op kind: well-known kinds get hand-picked, distinct
// colours; others a palette entry chosen by a hash of the name.
ImU32 OpColor(std::string_view op_name);
// Colour swatches of the op kinds present in the model, wrapping to the width.
void OpLegend(const trace::TraceModel& model);
// Colour swatches of the lane states the state strips draw, on one line
// (wrapping if narrow): the workers' three, then the frontend's.
void StateLegend();

}  // namespace asyncscope::widgets
