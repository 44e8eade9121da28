#include "app/gui/console_panel.h"

#include <algorithm>
#include <cstdint>

#include "app/gui/panel_style.h"

namespace asyncscope::app {
namespace {

const ImVec4 kWellColor(0.06f, 0.065f, 0.075f, 1.0f);

}  // namespace

bool ConsoleFollow::update(int run_number, float scroll_y, float scroll_max_y, float slack) {
  if (run_number != run_number_) {
    run_number_ = run_number;
    return true;
  }
  return scroll_y >= scroll_max_y - slack;
}

std::string line_count_text(size_t lines) {
  return std::to_string(lines) + (lines == 1 ? " line" : " lines");
}

std::string join_lines(std::span<const std::string> lines) {
  std::string text;
  for (const std::string& line : lines) text.append(line).push_back('\n');
  return text;
}

const char* console_hint(const RunRecord* run) {
  if (run == nullptr) return "What a run's program prints appears here.";
  if (!run->console.empty()) return nullptr;
  if (!run->source.empty()) return "A trace file keeps no console output.";
  return run->live ? "Nothing printed yet." : "This run printed nothing.";
}

std::string console_tab_label(const RunRecord* run) {
  const size_t lines = run != nullptr ? run->console.size() : 0;
  return (lines > 0 ? "Console (" + std::to_string(lines) + ")" : std::string("Console")) + "###console";
}

bool console_first_after(const RunRecord& ended) {
  return !ended.console.empty() && (!ended.results || ended.results->rows.empty());
}

void ConsolePanel::draw(const RunRecord* run, ImFont* mono) {
  if (const char* hint = console_hint(run)) {
    centred_hint(hint);
    return;
  }
  // Whose lines these are and how many, and Copy at the right.
  section_label(run->title() + (run->live ? " has printed " : " printed ") + line_count_text(run->console.size()) +
                ":");
  const char* copy = "Copy";
  const float width = ImGui::CalcTextSize(copy).x + ImGui::GetStyle().FramePadding.x * 2;
  ImGui::SameLine(std::max(ImGui::GetCursorPosX(), ImGui::GetWindowContentRegionMax().x - width));
  if (ImGui::SmallButton(copy)) ImGui::SetClipboardText(join_lines(run->console).c_str());
  hover_help("Copy every line to the clipboard (right-click a line to copy only that one).");
  draw_lines(*run, mono);
}

void ConsolePanel::draw_lines(const RunRecord& run, ImFont* mono) {
  // A darker well, as output reads in a terminal.
  ImGui::PushStyleColor(ImGuiCol_ChildBg, kWellColor);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImGui::GetStyle().FramePadding);
  ImGui::BeginChild("lines", ImVec2(0, 0), false,
                    ImGuiWindowFlags_HorizontalScrollbar | ImGuiWindowFlags_AlwaysUseWindowPadding);
  ImGui::PopStyleVar();
  ImGui::PopStyleColor();
  if (mono != nullptr) ImGui::PushFont(mono);
  const bool to_end =
      follow_.update(run.number, ImGui::GetScrollY(), ImGui::GetScrollMaxY(), ImGui::GetTextLineHeight() * 0.5f);
  // A right-click off every line opens the menu with "Copy line" disabled.
  if (ImGui::IsWindowHovered() && ImGui::IsMouseClicked(ImGuiMouseButton_Right)) context_line_ = SIZE_MAX;
  // Only the visible lines are submitted: a program may print many thousands.
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(run.console.size()));
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const std::string& line = run.console[static_cast<size_t>(i)];
      ImGui::TextUnformatted(line.data(), line.data() + line.size());
      if (ImGui::IsItemHovered() && ImGui::IsMouseClicked(ImGuiMouseButton_Right)) {
        context_line_ = static_cast<size_t>(i);
      }
    }
  }
  clipper.End();
  if (to_end) ImGui::SetScrollHereY(1.0f);
  if (mono != nullptr) ImGui::PopFont();
  if (ImGui::BeginPopupContextWindow("line menu")) {
    const bool has_line = context_line_ < run.console.size();
    if (ImGui::MenuItem("Copy line", nullptr, false, has_line)) {
      ImGui::SetClipboardText(run.console[context_line_].c_str());
    }
    if (ImGui::MenuItem("Copy all")) ImGui::SetClipboardText(join_lines(run.console).c_str());
    ImGui::EndPopup();
  }
  ImGui::EndChild();
}

}  // namespace asyncscope::app
