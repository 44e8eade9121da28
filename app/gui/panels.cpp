// The panels of GuiApp: menu, left panel with knobs, centre views, results, popups.
#include <imgui.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <sstream>
#include <vector>

#include "app/gui/gui_app.h"
#include "app/gui/window.h"
#include "engine/demos/program.h"
#include "engine/tensor/blas.h"

namespace asyncscope::app {
namespace {

const ImVec4 kErrorColor(1.0f, 0.45f, 0.42f, 1.0f);
const ImVec4 kMutedColor(0.62f, 0.65f, 0.72f, 1.0f);

void help_marker(const std::string& text) {
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

// Why --device cuda is unavailable ("" if it is).
std::string cuda_unavailable() {
  demos::ParamValues probe({demos::device_param()});
  probe.set_choice("device", "cuda");
  try {
    demos::device_from(probe);
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

// Draws the small markdown subset of the explanations: "# title" (skipped,
// the panel shows the title), "- " bullets (continued by indented lines),
// blank-line paragraphs; `code` and **bold** marks are dropped (a lone *
// stays: it is multiplication in the formulas).
void draw_explanation(const std::string& text) {
  struct Block {
    bool bullet = false;
    std::string text;
  };
  std::vector<Block> blocks;
  std::istringstream in(text);
  std::string line;
  bool open = false;  // the last block still takes continuation lines
  while (std::getline(in, line)) {
    std::string clean;
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '`') continue;
      if (line.compare(i, 2, "**") == 0) {
        ++i;
        continue;
      }
      clean += line[i];
    }
    const size_t first = clean.find_first_not_of(' ');
    if (clean.rfind("# ", 0) == 0) continue;
    if (first == std::string::npos) {
      open = false;
      continue;
    }
    if (clean.compare(first, 2, "- ") == 0) {
      blocks.push_back({true, clean.substr(first + 2)});
      open = true;
    } else if (open) {
      blocks.back().text.push_back(' ');
      blocks.back().text.append(clean, first, std::string::npos);
    } else {
      blocks.push_back({false, clean.substr(first)});
      open = true;
    }
  }
  for (const Block& b : blocks) {
    if (b.bullet) {
      ImGui::Bullet();
      ImGui::SameLine();
    } else {
      ImGui::Spacing();
    }
    ImGui::TextWrapped("%s", b.text.c_str());
  }
}

}  // namespace

void GuiApp::draw_menu() {
  if (!ImGui::BeginMenuBar()) return;
  if (ImGui::BeginMenu("File")) {
    if (ImGui::MenuItem("Open trace…", "Ctrl+O")) act(Action::open_trace);
    if (ImGui::MenuItem("Export trace…", "Ctrl+S", false, current() != nullptr)) act(Action::export_trace);
    if (ImGui::MenuItem("Save screenshot", "Ctrl+P")) act(Action::screenshot);
    ImGui::Separator();
    if (ImGui::MenuItem("Quit", "Ctrl+Q")) act(Action::quit);
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Run")) {
    if (ImGui::MenuItem(runner_.busy() ? "Stop" : "Run", "Space")) act(Action::toggle_run);
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("View")) {
    RunRecord* run = current();
    if (ImGui::MenuItem("Fit the run", "F", false, run != nullptr)) act(Action::fit);
    if (run && ImGui::MenuItem("Follow live", "L", run->timeline.follow_live)) act(Action::toggle_follow);
    ImGui::Separator();
    if (ImGui::BeginMenu("Compare with", runs_.size() > 1)) {
      if (ImGui::MenuItem("Nothing", nullptr, compare_ < 0)) compare_ = -1;
      for (size_t i = 0; i < runs_.size(); ++i) {
        if (static_cast<int>(i) == current_) continue;
        if (ImGui::MenuItem(runs_[i]->title().c_str(), nullptr, compare_ == static_cast<int>(i))) {
          compare_ = static_cast<int>(i);
        }
      }
      ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Show run", !runs_.empty())) {
      for (size_t i = 0; i < runs_.size(); ++i) {
        if (ImGui::MenuItem(runs_[i]->title().c_str(), nullptr, current_ == static_cast<int>(i))) {
          show_run(static_cast<int>(i));
        }
      }
      ImGui::EndMenu();
    }
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Help")) {
    if (ImGui::MenuItem("About asyncscope")) popup_ = Popup::about;
    ImGui::EndMenu();
  }
  ImGui::EndMenuBar();
}

void GuiApp::draw_left_panel(float width) {
  (void)width;
  ImGui::TextColored(kMutedColor, "DEMO");
  ImGui::SetNextItemWidth(-1);
  if (ImGui::BeginCombo("##demo", demo_->title().c_str())) {
    for (const auto& d : demos::all_demos()) {
      if (ImGui::Selectable(d->title().c_str(), d.get() == demo_) && !runner_.busy()) select_demo(d.get());
      help_marker(d->summary());
    }
    ImGui::EndCombo();
  }
  ImGui::Spacing();
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(demo_->summary().c_str());
  ImGui::PopTextWrapPos();
  ImGui::Separator();

  const float knobs_height = ImGui::GetFrameHeightWithSpacing() * (static_cast<float>(demo_->params().size()) + 4.5f);
  const float explanation_height = ImGui::GetContentRegionAvail().y - knobs_height;
  ImGui::BeginChild("explanation", ImVec2(0, std::max(80.0f, explanation_height)), false);
  if (auto it = explanations_.find(demo_->name()); it != explanations_.end()) {
    draw_explanation(it->second);
  } else {
    ImGui::TextColored(kMutedColor, "(no explanation found: set ASYNCSCOPE_ASSETS to the assets folder)");
  }
  ImGui::EndChild();
  ImGui::Separator();
  draw_knobs();

  const float button_width = ImGui::GetContentRegionAvail().x;
  if (runner_.busy()) {
    if (ImGui::Button("Stop  (Space)", ImVec2(button_width, 0))) runner_.stop();
    ImGui::ProgressBar(static_cast<float>(runner_.progress()), ImVec2(-1, 0), runner_.progress_text().c_str());
  } else {
    if (ImGui::Button("Run  (Space)", ImVec2(button_width, 0))) start_run();
    draw_status_line();
  }
}

void GuiApp::draw_knobs() {
  ImGui::TextColored(kMutedColor, "KNOBS");
  ImGui::BeginDisabled(runner_.busy());
  const float label_width = ImGui::GetContentRegionAvail().x * 0.42f;
  for (const demos::Param& p : demo_->params()) {
    ImGui::PushID(p.name.c_str());
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(p.name.c_str());
    help_marker(p.help);
    ImGui::SameLine(label_width);
    ImGui::SetNextItemWidth(-1);
    try {
      switch (p.kind) {
        case demos::Param::Kind::integer: {
          int64_t v = values_->integer(p.name);
          const int64_t step = 1;
          const int64_t big_step = std::max<int64_t>(1, static_cast<int64_t>(p.max / 100));
          if (ImGui::InputScalar("##v", ImGuiDataType_S64, &v, &step, &big_step, "%" PRId64)) {
            values_->set_integer(p.name, v);
            knob_errors_.erase(p.name);
          }
          break;
        }
        case demos::Param::Kind::number: {
          double v = values_->number(p.name);
          if (ImGui::InputDouble("##v", &v, 0, 0, "%g")) {
            char text[64];
            std::snprintf(text, sizeof(text), "%.17g", v);
            values_->set(p.name, text);
            knob_errors_.erase(p.name);
          }
          break;
        }
        case demos::Param::Kind::choice: {
          const std::string& chosen = values_->choice(p.name);
          if (ImGui::BeginCombo("##v", chosen.c_str())) {
            for (const std::string& c : p.choices) {
              const std::string why = p.name == "device" && c == "cuda" ? cuda_unavailable() : "";
              ImGui::BeginDisabled(!why.empty());
              if (ImGui::Selectable(c.c_str(), c == chosen)) values_->set_choice(p.name, c);
              ImGui::EndDisabled();
              if (!why.empty() && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
                ImGui::SetTooltip("%s", why.c_str());
              }
            }
            ImGui::EndCombo();
          }
          break;
        }
      }
    } catch (const std::invalid_argument& e) {
      knob_errors_[p.name] = e.what();
    }
    if (auto it = knob_errors_.find(p.name); it != knob_errors_.end()) {
      ImGui::PushTextWrapPos(0);
      ImGui::TextColored(kErrorColor, "%s", it->second.c_str());
      ImGui::PopTextWrapPos();
    }
    ImGui::PopID();
  }
  ImGui::EndDisabled();
  ImGui::Spacing();
}

void GuiApp::draw_status_line() {
  if (status_.empty()) {
    ImGui::TextColored(kMutedColor, "Press Space to run.");
    return;
  }
  ImGui::PushTextWrapPos(0);
  ImGui::TextColored(status_is_error_ ? kErrorColor : kMutedColor, "%s", status_.c_str());
  ImGui::PopTextWrapPos();
}

void GuiApp::draw_centre(float height) {
  RunRecord* run = current();
  ImGui::BeginChild("centre", ImVec2(0, height), true);
  if (run == nullptr) {
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const char* hint = "Press Space (or Run) to start the demo; its timeline appears here as it runs.";
    const ImVec2 size = ImGui::CalcTextSize(hint);
    ImGui::SetCursorPos(ImVec2((avail.x - size.x) * 0.5f, avail.y * 0.45f));
    ImGui::TextColored(kMutedColor, "%s", hint);
    ImGui::EndChild();
    return;
  }
  widgets::OpLegend(run->model);
  RunRecord* other = compared();
  const bool graph = run->views.op_graph;
  float timeline_height = ImGui::GetContentRegionAvail().y;
  if (graph) {
    if (run->model.ops.size() != graph_ops_seen_) {
      graph_ = trace::build_op_graph(run->model);
      graph_ops_seen_ = run->model.ops.size();
    }
    const float graph_height = timeline_height * 0.42f;
    widgets::OpGraphView("graph", run->model, graph_, graph_state_, ImVec2(0, graph_height));
    timeline_height = ImGui::GetContentRegionAvail().y;
  }
  widgets::TimelineOptions options;
  options.live = run->live;
  // Titles are kept here: the options hold pointers to them for the call.
  const std::string run_title = run->title();
  const std::string other_title = other ? other->title() : std::string();
  if (other != nullptr) {
    options.title = run_title.c_str();
    options.height = timeline_height * 0.5f - ImGui::GetStyle().ItemSpacing.y;
    const widgets::TimeView before = run->timeline.view;
    widgets::Timeline("timeline", run->model, run->timeline, options);
    // Scrolled and zoomed together: whichever timeline moved leads.
    const bool moved = run->timeline.view.begin_ns != before.begin_ns || run->timeline.view.end_ns != before.end_ns;
    if (moved) other->timeline.view = run->timeline.view;
    widgets::TimelineOptions other_options;
    other_options.title = other_title.c_str();
    const widgets::TimeView before_other = other->timeline.view;
    widgets::Timeline("compare", other->model, other->timeline, other_options);
    if (other->timeline.view.begin_ns != before_other.begin_ns || other->timeline.view.end_ns != before_other.end_ns) {
      run->timeline.view = other->timeline.view;
      run->timeline.follow_live = false;
    }
  } else {
    widgets::Timeline("timeline", run->model, run->timeline, options);
  }
  ImGui::EndChild();
}

void GuiApp::draw_results(float height) {
  ImGui::BeginChild("results", ImVec2(0, height), true);
  if (result_columns_.empty()) {
    ImGui::TextColored(kMutedColor, "Results of this session's runs appear here, side by side.");
  } else {
    widgets::ResultsTable("results", result_columns_);
  }
  ImGui::EndChild();
}

void GuiApp::draw_popups() {
  const char* names[] = {"", "Open trace", "Export trace", "Screenshot", "About asyncscope"};
  if (popup_ == Popup::none) return;
  const char* name = names[static_cast<int>(popup_)];
  if (!ImGui::IsPopupOpen(name)) ImGui::OpenPopup(name);
  ImGui::SetNextWindowSize(ImVec2(560 * window_.scale(), 0));
  bool open = true;
  if (ImGui::BeginPopupModal(name, &open, ImGuiWindowFlags_AlwaysAutoResize)) {
    if (popup_ == Popup::about) {
      ImGui::Text("asyncscope %s", ASYNCSCOPE_VERSION);
      ImGui::TextWrapped("A real dependency engine runs real workloads; every span you see was measured.");
      try {
        const blas::Info& info = blas::info();
        ImGui::TextWrapped("OpenBLAS kernel: %s (%s)", info.core.c_str(), info.reason.c_str());
      } catch (const std::exception& e) {
        ImGui::TextColored(kErrorColor, "%s", e.what());
      }
      if (ImGui::Button("Close")) popup_ = Popup::none;
    } else {
      ImGui::TextUnformatted(popup_ == Popup::open ? "Trace file (written by asyncscope) to open:"
                                                   : "Write the current run's trace to:");
      ImGui::SetNextItemWidth(-1);
      if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
      // Enter and Escape from the key queue: a quick tap can fall between two
      // frames, where ImGui 1.86's IsKeyPressed does not see it.
      const auto pressed = [this](int key) {
        return std::any_of(presses_.begin(), presses_.end(), [key](const KeyPress& k) { return k.key == key; });
      };
      constexpr int kEnter = 257, kKeypadEnter = 335, kEscape = 256;  // GLFW key codes
      const bool entered =
          ImGui::InputText("##path", path_buffer_, sizeof(path_buffer_), ImGuiInputTextFlags_EnterReturnsTrue) ||
          pressed(kEnter) || pressed(kKeypadEnter);
      if (!popup_error_.empty()) {
        ImGui::PushTextWrapPos(0);
        ImGui::TextColored(kErrorColor, "%s", popup_error_.c_str());
        ImGui::PopTextWrapPos();
      }
      if (ImGui::Button(popup_ == Popup::open ? "Open" : "Export") || entered) {
        if (popup_ == Popup::open) {
          open_trace(path_buffer_);
          if (popup_error_.empty()) popup_ = Popup::none;
        } else {
          export_trace(path_buffer_);
        }
      }
      ImGui::SameLine();
      if (ImGui::Button("Cancel") || pressed(kEscape)) popup_ = Popup::none;
    }
    if (popup_ == Popup::none) {
      popup_error_.clear();
      ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
  }
  if (!open) {
    popup_ = Popup::none;
    popup_error_.clear();
  }
}

}  // namespace asyncscope::app
