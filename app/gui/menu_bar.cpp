#include "app/gui/menu_bar.h"

#include <imgui.h>

#include <exception>

#include "engine/core/device.h"

namespace asyncscope::app {
namespace {

// A menu item carrying out `action`, with its shortcut shown.
void action_item(const char* label, Action action, std::optional<Action>& asked, bool enabled = true,
                 bool selected = false) {
  if (ImGui::MenuItem(label, shortcut_label(action), selected, enabled)) asked = action;
}

void run_menus(RunList& runs) {
  if (ImGui::BeginMenu("Compare with", runs.size() > 1)) {
    if (ImGui::MenuItem("Nothing", nullptr, runs.compare_index() < 0)) runs.compare_with(-1);
    for (size_t i = 0; i < runs.size(); ++i) {
      const int index = static_cast<int>(i);
      if (index == runs.current_index()) continue;
      if (ImGui::MenuItem(runs.at(i).title().c_str(), nullptr, runs.compare_index() == index)) runs.compare_with(index);
    }
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Show run", !runs.empty())) {
    for (size_t i = 0; i < runs.size(); ++i) {
      const int index = static_cast<int>(i);
      if (ImGui::MenuItem(runs.at(i).title().c_str(), nullptr, runs.current_index() == index)) runs.show(index);
    }
    ImGui::EndMenu();
  }
}

int simulated_gpus_now() {
  try {
    return simulated_gpus();
  } catch (const std::exception&) {
    return 0;  // a bad ASYNCSCOPE_SIMULATED_GPUS: the app said so at start
  }
}

}  // namespace

std::vector<std::string> with_simulated_gpus(const std::vector<std::string>& args, int n) {
  std::vector<std::string> out;
  if (args.empty()) return out;
  out.push_back(args[0]);
  out.push_back("--simulated-gpus");
  out.push_back(std::to_string(n));
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--simulated-gpus") {
      ++i;  // and its value
      continue;
    }
    if (a.rfind("--simulated-gpus=", 0) == 0) continue;
    out.push_back(a);
  }
  return out;
}

std::optional<Action> draw_menu_bar(RunList& runs, bool running, std::optional<int>& simulated_gpus) {
  std::optional<Action> asked;
  if (!ImGui::BeginMenuBar()) return asked;
  const RunRecord* run = runs.current();
  if (ImGui::BeginMenu("File")) {
    action_item("Open trace…", Action::open_trace, asked);
    action_item("Open script…", Action::open_script, asked);
    action_item("Attach to process…", Action::attach, asked, !running);
    action_item("Export trace…", Action::export_trace, asked, run != nullptr);
    action_item("Save screenshot", Action::screenshot, asked);
    ImGui::Separator();
    action_item("Quit", Action::quit, asked);
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Run")) {
    action_item(running ? "Stop" : "Run", Action::toggle_run, asked);
    ImGui::Separator();
    // Process-wide (engine/core/device.h): another number restarts the app.
    if (ImGui::BeginMenu("Simulated GPUs", !running)) {
      const int now = simulated_gpus_now();
      for (const int n : {0, 1, 2, 4}) {
        const std::string label = n == 0 ? std::string("none") : std::to_string(n) + (n == 1 ? " GPU" : " GPUs");
        if (ImGui::MenuItem(label.c_str(), nullptr, n == now) && n != now) simulated_gpus = n;
      }
      ImGui::TextDisabled("another number restarts the app (export runs to keep them)");
      ImGui::EndMenu();
    }
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("View")) {
    action_item("Fit the run", Action::fit, asked, run != nullptr);
    if (run != nullptr) action_item("Follow live", Action::toggle_follow, asked, true, run->timeline.follow_live);
    ImGui::Separator();
    run_menus(runs);
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Help")) {
    action_item("About asyncscope", Action::about, asked);
    ImGui::EndMenu();
  }
  ImGui::EndMenuBar();
  return asked;
}

}  // namespace asyncscope::app
