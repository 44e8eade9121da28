#include "widgets/lane.h"

#include <algorithm>
#include <cstring>
#include <string_view>

namespace asyncscope::widgets {

bool label_in_box(Canvas& draw, const LaneContext& ctx, float xa, float xb, float y0, float y1, ImU32 color,
                  const char* text, const char* text_end, bool centred) {
  const float left = std::max(xa, ctx.x0) + 4.0f;
  const float right = std::min(xb, ctx.x1) - 3.0f;
  const ImVec2 size = ImGui::CalcTextSize(text, text_end);
  if (right - left < std::min(size.x, ImGui::CalcTextSize("ab").x)) return false;
  const float x = centred && size.x < right - left ? (left + right - size.x) * 0.5f : left;
  const ImVec4 clip(left, y0, right, y1);
  const std::string_view shown(text, text_end != nullptr ? static_cast<size_t>(text_end - text) : std::strlen(text));
  draw.text(ImVec2(x, (y0 + y1 - size.y) * 0.5f), color, shown, &clip);
  return true;
}

}  // namespace asyncscope::widgets
