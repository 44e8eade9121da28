#include "app/gui/panel_style.h"

#include <algorithm>

namespace asyncscope::app {

void section_label(std::string_view text) {
  ImGui::PushStyleColor(ImGuiCol_Text, kMutedColor);
  ImGui::TextUnformatted(text.data(), text.data() + text.size());
  ImGui::PopStyleColor();
}

void wrapped_text(std::string_view text, bool is_error) {
  ImGui::PushStyleColor(ImGuiCol_Text, is_error ? kErrorColor : kMutedColor);
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(text.data(), text.data() + text.size());
  ImGui::PopTextWrapPos();
  ImGui::PopStyleColor();
}

void hover_help(std::string_view text) {
  if (!ImGui::IsItemHovered()) return;
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28);
  ImGui::TextUnformatted(text.data(), text.data() + text.size());
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

void centred_hint(std::string_view text) {
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 size = ImGui::CalcTextSize(text.data(), text.data() + text.size(), false, avail.x);
  const ImVec2 at = ImGui::GetCursorPos();
  ImGui::SetCursorPos(ImVec2(at.x + std::max(0.0f, (avail.x - size.x) * 0.5f), at.y + avail.y * 0.45f - size.y * 0.5f));
  ImGui::PushStyleColor(ImGuiCol_Text, kMutedColor);
  ImGui::PushTextWrapPos(ImGui::GetCursorPos().x + avail.x);
  ImGui::TextUnformatted(text.data(), text.data() + text.size());
  ImGui::PopTextWrapPos();
  ImGui::PopStyleColor();
}

}  // namespace asyncscope::app
