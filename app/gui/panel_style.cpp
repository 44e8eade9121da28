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
  words_wrapped(text);
  ImGui::PopStyleColor();
}

void words_wrapped(std::string_view text) {
  const float width = std::max(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 4);
  const auto wide = [](std::string_view s) { return ImGui::CalcTextSize(s.data(), s.data() + s.size()).x; };
  for (std::string_view rest = text;;) {
    const size_t newline = rest.find('\n');
    std::string_view paragraph = rest.substr(0, newline);
    // Greedy: as many words as fit, broken at a space.
    while (!paragraph.empty()) {
      size_t end = paragraph.size();
      if (wide(paragraph) > width) {
        size_t fit = 0;
        for (size_t space = paragraph.find(' '); space != std::string_view::npos; space = paragraph.find(' ', space + 1)) {
          if (wide(paragraph.substr(0, space)) > width) break;
          fit = space;
        }
        if (fit == 0) fit = paragraph.find(' ');  // one word wider than the line: on its own
        if (fit != std::string_view::npos) end = fit;
      }
      const std::string_view line = paragraph.substr(0, end);
      ImGui::TextUnformatted(line.data(), line.data() + line.size());
      paragraph.remove_prefix(std::min(paragraph.size(), end + 1));
    }
    if (newline == std::string_view::npos) break;
    if (paragraph.empty() && rest.substr(0, newline).empty()) ImGui::TextUnformatted("");
    rest.remove_prefix(newline + 1);
  }
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
