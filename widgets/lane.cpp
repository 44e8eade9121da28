#include "widgets/lane.h"

#include <algorithm>

namespace asyncscope::widgets {

bool label_in_box(ImDrawList* draw, const LaneContext& ctx, float xa, float xb, float y0, float y1, ImU32 color,
                  const char* text, const char* text_end, bool centred) {
  const float left = std::max(xa, ctx.x0) + 4.0f;
  const float right = std::min(xb, ctx.x1) - 3.0f;
  const ImVec2 size = ImGui::CalcTextSize(text, text_end);
  if (right - left < std::min(size.x, ImGui::CalcTextSize("ab").x)) return false;
  const float x = centred && size.x < right - left ? (left + right - size.x) * 0.5f : left;
  const ImVec4 clip(left, y0, right, y1);
  draw->AddText(ImGui::GetFont(), ImGui::GetFontSize(), ImVec2(x, (y0 + y1 - size.y) * 0.5f), color, text, text_end,
                0.0f, &clip);
  return true;
}

}  // namespace asyncscope::widgets
