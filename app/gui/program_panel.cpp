#include "app/gui/program_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <stdexcept>

#include "app/gui/panel_style.h"
#include "engine/demos/registry.h"

namespace asyncscope::app {
namespace {

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

}  // namespace

ProgramPanel::ProgramPanel(const demos::Program& program) : program_(&program), values_(program.defaults()) {}

void ProgramPanel::select(const demos::Program& program) {
  program_ = &program;
  values_ = program.defaults();
  knob_errors_.clear();
}

std::optional<Action> ProgramPanel::draw(const RunProgress& progress, const StatusLine& status,
                                         const std::function<void()>& body) {
  draw_picker(progress.running);
  ImGui::Separator();
  // The explanation takes what the knobs and the button below leave.
  const float below =
      ImGui::GetFrameHeightWithSpacing() * (static_cast<float>(program_->params().size()) + 4.5f);
  ImGui::BeginChild("explanation", ImVec2(0, std::max(80.0f, ImGui::GetContentRegionAvail().y - below)), false);
  if (body) {
    body();
  } else if (const auto* blocks = explanations_.find(program_->name())) {
    draw_explanation(*blocks);
  } else {
    wrapped_text("(no explanation found: set ASYNCSCOPE_ASSETS to the assets folder)");
  }
  ImGui::EndChild();
  ImGui::Separator();
  draw_knobs(progress.running);

  std::optional<Action> asked;
  const float button_width = ImGui::GetContentRegionAvail().x;
  const std::string key = std::string("  (") + shortcut_label(Action::toggle_run) + ")";
  if (progress.running) {
    if (ImGui::Button(("Stop" + key).c_str(), ImVec2(button_width, 0))) asked = Action::stop;
    ImGui::ProgressBar(static_cast<float>(progress.fraction), ImVec2(-1, 0), progress.text.c_str());
  } else {
    if (ImGui::Button(("Run" + key).c_str(), ImVec2(button_width, 0))) asked = Action::run;
    draw_status(status);
  }
  return asked;
}

void ProgramPanel::draw_picker(bool running) {
  section_label(scripts_ != nullptr && !scripts_->empty() ? "DEMO OR SCRIPT" : "DEMO");
  ImGui::SetNextItemWidth(-1);
  if (ImGui::BeginCombo("##program", program_->title().c_str())) {
    for (const auto& p : demos::all_demos()) {
      // A live run keeps its program: the picker shows them but does not switch.
      if (ImGui::Selectable(p->title().c_str(), p.get() == program_) && !running) select(*p);
      hover_help(p->summary());
    }
    if (scripts_ != nullptr && !scripts_->empty()) {
      ImGui::Separator();
      ImGui::TextDisabled("Scripts");
      for (const demos::Program* p : *scripts_) {
        if (ImGui::Selectable(p->title().c_str(), p == program_) && !running) select(*p);
        hover_help(p->summary());
      }
    }
    ImGui::EndCombo();
  }
  ImGui::Spacing();
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(program_->summary().c_str());
  ImGui::PopTextWrapPos();
}

void ProgramPanel::draw_knobs(bool running) {
  section_label("KNOBS");
  ImGui::BeginDisabled(running);
  const float label_width = ImGui::GetContentRegionAvail().x * 0.42f;
  for (const demos::Param& p : program_->params()) draw_knob(p, label_width);
  ImGui::EndDisabled();
  ImGui::Spacing();
}

void ProgramPanel::draw_knob(const demos::Param& p, float label_width) {
  ImGui::PushID(p.name.c_str());
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(p.name.c_str());
  hover_help(p.help);
  ImGui::SameLine(label_width);
  ImGui::SetNextItemWidth(-1);
  try {
    switch (p.kind) {
      case demos::Param::Kind::integer: {
        int64_t v = values_.integer(p.name);
        const int64_t step = 1;
        const int64_t big_step = std::max<int64_t>(1, static_cast<int64_t>(p.max / 100));
        if (ImGui::InputScalar("##v", ImGuiDataType_S64, &v, &step, &big_step, "%" PRId64)) {
          values_.set_integer(p.name, v);
          knob_errors_.erase(p.name);
        }
        break;
      }
      case demos::Param::Kind::number: {
        double v = values_.number(p.name);
        if (ImGui::InputDouble("##v", &v, 0, 0, "%g")) {
          char text[64];
          std::snprintf(text, sizeof(text), "%.17g", v);
          values_.set(p.name, text);
          knob_errors_.erase(p.name);
        }
        break;
      }
      case demos::Param::Kind::choice: {
        const std::string& chosen = values_.choice(p.name);
        if (ImGui::BeginCombo("##v", chosen.c_str())) {
          for (const std::string& c : p.choices) {
            const std::string why = p.name == "device" && c == "cuda" ? cuda_unavailable() : "";
            ImGui::BeginDisabled(!why.empty());
            if (ImGui::Selectable(c.c_str(), c == chosen)) values_.set_choice(p.name, c);
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
  if (auto it = knob_errors_.find(p.name); it != knob_errors_.end()) wrapped_text(it->second, true);
  ImGui::PopID();
}

void ProgramPanel::draw_status(const StatusLine& status) {
  if (status.text.empty()) {
    wrapped_text(std::string("Press ") + shortcut_label(Action::toggle_run) + " to run.");
  } else {
    wrapped_text(status.text, status.is_error);
  }
}

}  // namespace asyncscope::app
