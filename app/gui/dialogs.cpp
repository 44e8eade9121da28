#include "app/gui/dialogs.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "app/gui/panel_style.h"
#include "engine/tensor/blas.h"

namespace asyncscope::app {
namespace {

constexpr int kEnter = 257, kKeypadEnter = 335, kEscape = 256;  // GLFW key codes

bool pressed(std::span<const KeyPress> presses, int key) {
  return std::any_of(presses.begin(), presses.end(), [key](const KeyPress& k) { return k.key == key; });
}

}  // namespace

void Dialogs::ask_path(PathPrompt prompt) {
  prompt_ = std::move(prompt);
  std::snprintf(path_, sizeof(path_), "%s", prompt_.path.c_str());
  error_.clear();
  kind_ = Kind::path;
}

void Dialogs::show_about() {
  error_.clear();
  kind_ = Kind::about;
}

void Dialogs::ask_attach(std::function<std::string(int pid)> accept) {
  attach_ = std::move(accept);
  error_.clear();
  kind_ = Kind::attach;
  refresh_publishers();
}

void Dialogs::refresh_publishers() {
  publishers_.clear();
  picked_ = -1;
  try {
    publishers_ = trace::list_publishers();
    if (publishers_.size() == 1) picked_ = 0;
  } catch (const std::exception& e) {
    error_ = e.what();
  }
}

void Dialogs::close() {
  kind_ = Kind::none;
  error_.clear();
  close_ = true;
}

void Dialogs::draw(float scale, std::span<const KeyPress> presses) {
  if (kind_ == Kind::none) return;
  const char* name = kind_ == Kind::about    ? "About asyncscope"
                     : kind_ == Kind::attach ? "Attach to process"
                                             : prompt_.title.c_str();
  // The name is also the popup's id: copied, as closing may replace the prompt.
  const std::string id = name;
  if (!ImGui::IsPopupOpen(id.c_str())) ImGui::OpenPopup(id.c_str());
  ImGui::SetNextWindowSize(ImVec2(560 * scale, 0));
  bool open = true;
  if (ImGui::BeginPopupModal(id.c_str(), &open, ImGuiWindowFlags_AlwaysAutoResize)) {
    close_ = false;
    if (kind_ == Kind::about) {
      draw_about();
      if (ImGui::Button("Close")) close();
    } else if (kind_ == Kind::attach) {
      draw_attach(presses);
    } else {
      draw_path_prompt(presses);
    }
    if (close_) ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
  }
  if (!open) close();
}

void Dialogs::draw_path_prompt(std::span<const KeyPress> presses) {
  ImGui::TextUnformatted(prompt_.prompt.c_str());
  ImGui::SetNextItemWidth(-1);
  if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
  // Enter and Escape from the key queue: a quick tap can fall between two
  // frames, where ImGui 1.86's IsKeyPressed does not see it.
  const bool entered = ImGui::InputText("##path", path_, sizeof(path_), ImGuiInputTextFlags_EnterReturnsTrue) ||
                       pressed(presses, kEnter) || pressed(presses, kKeypadEnter);
  if (!error_.empty()) wrapped_text(error_, true);
  if (ImGui::Button(prompt_.button.c_str()) || entered) {
    if (std::string why = prompt_.accept(path_); why.empty()) {
      close();
    } else {
      error_ = std::move(why);
    }
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel") || pressed(presses, kEscape)) close();
}

void Dialogs::draw_attach(std::span<const KeyPress> presses) {
  ImGui::TextUnformatted("Programs of yours that publish their trace:");
  bool go = false;
  if (publishers_.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("None now. Start one with ASYNCSCOPE_SERVE=1 python3 SCRIPT.py, or call asyncscope.serve() in "
                       "it (a notebook's kernel too), then Refresh.");
    ImGui::PopStyleColor();
  } else if (ImGui::BeginTable("publishers", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV)) {
    ImGui::TableSetupColumn("pid", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("program", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("command line", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < publishers_.size(); ++i) {
      const trace::LiveHello& h = publishers_[i].hello;
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      const std::string label = std::to_string(h.pid) + "##" + std::to_string(i);
      if (ImGui::Selectable(label.c_str(), picked_ == static_cast<int>(i),
                            ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowDoubleClick)) {
        picked_ = static_cast<int>(i);
        go = ImGui::IsMouseDoubleClicked(0);
      }
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(h.title.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(h.command.c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\nin %s", h.command.c_str(), h.cwd.c_str());
    }
    ImGui::EndTable();
  }
  if (!error_.empty()) wrapped_text(error_, true);
  const bool can = picked_ >= 0 && picked_ < static_cast<int>(publishers_.size());
  if (!can) ImGui::BeginDisabled();
  go |= ImGui::Button("Attach") || (can && (pressed(presses, kEnter) || pressed(presses, kKeypadEnter)));
  if (!can) ImGui::EndDisabled();
  if (go && can) {
    if (std::string why = attach_(publishers_[static_cast<size_t>(picked_)].hello.pid); why.empty()) {
      close();
      return;
    } else {
      error_ = std::move(why);
    }
  }
  ImGui::SameLine();
  if (ImGui::Button("Refresh")) {
    error_.clear();
    refresh_publishers();
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel") || pressed(presses, kEscape)) close();
}

void Dialogs::draw_about() {
  ImGui::Text("asyncscope %s", ASYNCSCOPE_VERSION);
  ImGui::TextWrapped("A real dependency engine runs real workloads; every span you see was measured.");
  try {
    const blas::Info& info = blas::info();
    ImGui::TextWrapped("OpenBLAS kernel: %s (%s)", info.core.c_str(), info.reason.c_str());
  } catch (const std::exception& e) {
    wrapped_text(e.what(), true);
  }
}

}  // namespace asyncscope::app
