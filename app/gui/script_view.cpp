#include "app/gui/script_view.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <utility>

#include "app/gui/panel_style.h"
#include "engine/base/output_file.h"
#include "widgets/colors.h"
#include "widgets/time_axis.h"
#include "engine/base/format.h"
#include "engine/base/input_file.h"

namespace asyncscope::app {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kLongWaitNs = 1'000'000;  // a line must wait at least this long to be marked

bool same_file(const std::string& recorded, const std::string& path) {
  return fs::path(recorded).filename() == fs::path(path).filename();
}

// The whole-line figures as a tooltip.
void figures_tooltip(const trace::LineFigures& f) {
  ImGui::BeginTooltip();
  ImGui::Text("line %u", f.line);
  ImGui::Separator();
  ImGui::Text("ran %llu times, pushed %llu ops", static_cast<unsigned long long>(f.runs),
              static_cast<unsigned long long>(f.ops));
  ImGui::Text("enqueue time %s", format_duration(f.enqueue_ns).c_str());
  ImGui::Text("waited %llu times, %s", static_cast<unsigned long long>(f.waits),
              format_duration(f.wait_ns).c_str());
  ImGui::Text("allocated %s", format_bytes(static_cast<int64_t>(f.bytes)).c_str());
  ImGui::TextDisabled("click: highlight its ops and waits on the timeline");
  ImGui::EndTooltip();
}

int on_input(ImGuiInputTextCallbackData* data) {
  auto* text = static_cast<std::string*>(data->UserData);
  if (data->EventFlag == ImGuiInputTextFlags_CallbackResize) {
    text->resize(static_cast<size_t>(data->BufTextLen));
    data->Buf = text->data();
  }
  return 0;
}

}  // namespace

std::string margin_text(const trace::LineFigures& f, bool compact) {
  std::string text = format_count(f.runs);
  text.append("\u00d7");
  if (compact) {
    if (f.waits > 0) text.append(" wait");
    return text.append(" ").append(format_duration(f.waits > 0 ? f.wait_ns : f.enqueue_ns));
  }
  if (f.ops > 0) text.append(" ").append(format_count(f.ops)).append(" ops ").append(format_duration(f.enqueue_ns));
  if (f.waits > 0) text.append(f.ops > 0 ? " | wait " : " wait ").append(format_duration(f.wait_ns));
  return text;
}

size_t count_lines(const std::string& text) {
  const size_t newlines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
  return newlines + (text.empty() || text.back() != '\n' ? 1 : 0);
}

std::vector<MarginLine> margin_lines(const std::vector<trace::LineFigures>& rows, const std::string& path,
                                     size_t num_lines) {
  const bool exact = std::any_of(rows.begin(), rows.end(), [&](const auto& f) { return f.file == path; });
  int64_t longest = 0;
  for (const trace::LineFigures& f : rows) longest = std::max(longest, f.wait_ns);
  std::vector<MarginLine> out(num_lines);
  for (const trace::LineFigures& f : rows) {
    if (f.line == 0 || f.line > num_lines) continue;
    if (exact ? f.file != path : !same_file(f.file, path)) continue;
    MarginLine& m = out[f.line - 1];
    m.text = margin_text(f);
    m.short_text = margin_text(f, true);
    m.line_index = f.line_index;
    m.wait_share = longest > 0 ? static_cast<double>(f.wait_ns) / static_cast<double>(longest) : 0.0;
    m.long_wait = f.wait_ns >= kLongWaitNs && f.wait_ns * 4 >= longest;
  }
  return out;
}

float figures_width(float widest_full, float widest_compact, float view_w, bool& compact) {
  const float cap = view_w * kFiguresShare;
  compact = widest_full > cap;
  return std::min(compact ? widest_compact : widest_full, cap);
}

std::string ScriptView::load(const std::string& path) {
  std::string text;
  try {
    text = read_whole_file(path);
  } catch (const std::invalid_argument& e) {
    return "cannot read " + path + ": " + e.what();
  }
  if (modified()) edits_[path_] = text_;
  text_ = saved_ = std::move(text);
  if (const auto it = edits_.find(path); it != edits_.end()) {
    text_ = it->second;
    edits_.erase(it);
  }
  path_ = path;
  ran_.clear();
  selected_ = cursor_line_ = 0;
  margin_run_ = -1;
  return "";
}

std::string ScriptView::save() {
  if (path_.empty()) return "There is no script to save.";
  try {
    write_output(path_, [this](std::ostream& out) { out << text_; });
  } catch (const std::exception& e) {
    return e.what();
  }
  saved_ = text_;
  return "";
}

void ScriptView::select_line(uint32_t line) {
  selected_ = line;
  scroll_to_selected_ = line > 0;
}

bool ScriptView::select_line_of_op(const trace::TraceModel& model, int64_t op_index) {
  if (op_index < 0 || static_cast<size_t>(op_index) >= model.ops.size()) return false;
  const trace::SourceLine* line = model.source_of(model.ops[static_cast<size_t>(op_index)].source);
  // By file name, as the margin matches a trace saved elsewhere.
  if (line == nullptr || fs::path(model.name(line->file)).filename() !=
                             fs::path(path_).filename()) {
    return false;
  }
  select_line(line->line);
  return true;
}

const std::vector<MarginLine>& ScriptView::margin(const RunRecord* run) {
  const size_t lines = count_lines(text_);
  if (run == nullptr) {
    margin_.assign(lines, MarginLine{});
    figures_.clear();
    margin_run_ = -1;
    return margin_;
  }
  const trace::TraceModel& m = run->model;
  size_t points = m.source_points.size() + m.syncs.size();
  for (const trace::FrontendLane& f : m.frontends) points += f.enqueues.size();  // enqueues read so far
  // The figures come from source points, enqueues and waits only, so while
  // a run goes on they change only when these counts do.
  if (margin_run_ != run->number || margin_model_ != &m || margin_points_ != points || margin_lines_ != lines) {
    figures_ = trace::line_figures(m);
    margin_ = margin_lines(figures_, path_, lines);
    const bool figures = std::any_of(margin_.begin(), margin_.end(), [](const MarginLine& l) { return !l.text.empty(); });
    if (margin_run_ != run->number) had_figures_ = false;
    if (figures && !had_figures_) scroll_to_figures_ = true;
    had_figures_ = figures;
    margin_run_ = run->number;
    margin_model_ = &m;
    margin_points_ = points;
    margin_lines_ = lines;
  }
  return margin_;
}

int64_t ScriptView::selected_index(const RunRecord* run) {
  if (selected_ == 0) return -1;
  const std::vector<MarginLine>& m = margin(run);
  return selected_ <= m.size() ? m[selected_ - 1].line_index : -1;
}

void ScriptView::save_into(StatusLine& message) {
  std::string why = save();
  message = why.empty() ? StatusLine{"Saved " + path_ + ".", false} : StatusLine{std::move(why), true};
}

StatusLine ScriptView::draw(const RunRecord* run, ImFont* mono, std::span<const KeyPress> presses) {
  StatusLine message;
  draw_toolbar(message);
  draw_source(run, mono, presses, message);
  return message;
}

void ScriptView::draw_toolbar(StatusLine& message) {
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(fs::path(path_).filename().string().c_str());
  hover_help(path_);
  if (modified()) {
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(1.0f, 0.8f, 0.4f, 1.0f), "(modified)");
  }
  const float buttons = ImGui::CalcTextSize("Save Revert").x + ImGui::GetStyle().FramePadding.x * 4 +
                        ImGui::GetStyle().ItemSpacing.x * 2;
  ImGui::SameLine(std::max(ImGui::GetCursorPosX(), ImGui::GetWindowContentRegionMax().x - buttons));
  ImGui::BeginDisabled(!modified());
  if (ImGui::Button("Save")) save_into(message);
  hover_help("Ctrl+S while editing");
  ImGui::SameLine();
  if (ImGui::Button("Revert")) revert();
  ImGui::EndDisabled();
  if (!ran_.empty() && text_ != ran_) {
    wrapped_text("Edited since the run: the figures are of the text that ran; run again to update them.");
  }
}

void ScriptView::draw_source(const RunRecord* run, ImFont* mono, std::span<const KeyPress> presses,
                             StatusLine& message) {
  ImGui::BeginChild("script source", ImVec2(0, 0), true, ImGuiWindowFlags_HorizontalScrollbar);
  if (mono != nullptr) ImGui::PushFont(mono);
  const ImGuiStyle& style = ImGui::GetStyle();
  const float lh = ImGui::GetFontSize();
  const float char_w = ImGui::CalcTextSize("0").x;
  const std::vector<MarginLine>& lines = margin(run);
  size_t longest_line = 0;
  for (size_t start = 0; start <= text_.size();) {
    size_t nl = text_.find('\n', start);
    if (nl == std::string::npos) nl = text_.size();
    longest_line = std::max(longest_line, nl - start);
    start = nl + 1;
  }
  char number[24];
  std::snprintf(number, sizeof number, "%zu", lines.size());
  const float number_w = char_w * static_cast<float>(std::max<size_t>(std::strlen(number), 2)) + char_w;
  // The figures column: as wide as its longest text, or of the compact
  // texts where the full ones would take more than its share of the view,
  // so that the code keeps most of it.
  float widest_full = 0, widest_compact = 0;
  for (const MarginLine& m : lines) {
    if (m.text.empty()) continue;
    widest_full = std::max(widest_full, ImGui::CalcTextSize(m.text.c_str()).x);
    widest_compact = std::max(widest_compact, ImGui::CalcTextSize(m.short_text.c_str()).x);
  }
  bool compact = false;
  const float figures_w = figures_width(widest_full, widest_compact, ImGui::GetContentRegionAvail().x, compact);
  const float margin_w = number_w + figures_w + char_w * 1.5f;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float top = origin.y + style.FramePadding.y;
  const float total_h = static_cast<float>(lines.size() + 1) * lh + style.FramePadding.y * 2;
  const float window_w = ImGui::GetContentRegionAvail().x;
  const float text_w = std::max(window_w - margin_w, static_cast<float>(longest_line + 4) * char_w);

  // The lines in view: backgrounds, line numbers, figures.
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const float scroll = ImGui::GetScrollY();
  const float view_h = ImGui::GetWindowHeight();
  const size_t first = static_cast<size_t>(std::max(0.0f, (scroll - style.FramePadding.y) / lh));
  const size_t last = std::min(lines.size(), first + static_cast<size_t>(view_h / lh) + 2);
  const float x1 = origin.x + margin_w + text_w;
  for (size_t i = first; i < last; ++i) {
    const MarginLine& m = lines[i];
    const float y = top + static_cast<float>(i) * lh;
    if (m.long_wait) draw->AddRectFilled(ImVec2(origin.x, y), ImVec2(x1, y + lh), widgets::with_alpha(widgets::theme::kSync, 34));
    if (m.wait_share > 0) {
      const float w = std::max(2.0f, static_cast<float>(m.wait_share) * figures_w);
      draw->AddRectFilled(ImVec2(origin.x + number_w, y + 1), ImVec2(origin.x + number_w + w, y + lh - 1),
                          widgets::with_alpha(widgets::theme::kSync, 48));
    }
    if (selected_ == i + 1) {
      draw->AddRectFilled(ImVec2(origin.x, y), ImVec2(x1, y + lh), widgets::with_alpha(widgets::theme::kSelection, 30));
      draw->AddRectFilled(ImVec2(origin.x, y), ImVec2(origin.x + 2, y + lh), widgets::theme::kDependency);
    }
    std::snprintf(number, sizeof number, "%zu", i + 1);
    draw->AddText(ImVec2(origin.x + number_w - char_w * (static_cast<float>(std::strlen(number)) + 0.5f), y),
                  widgets::theme::kTextDim, number);
    if (!m.text.empty()) {
      const std::string& text = compact ? m.short_text : m.text;
      draw->PushClipRect(ImVec2(origin.x, y), ImVec2(origin.x + number_w + figures_w, y + lh), true);
      draw->AddText(ImVec2(origin.x + number_w, y), m.long_wait ? widgets::theme::kSync : widgets::theme::kText,
                    text.c_str(), text.c_str() + text.size());
      draw->PopClipRect();
    }
  }
  draw->AddLine(ImVec2(origin.x + margin_w - char_w * 0.5f, origin.y),
                ImVec2(origin.x + margin_w - char_w * 0.5f, origin.y + total_h), widgets::theme::kSeparator);

  // A click in the margin selects its line (again: none); hovering shows its figures.
  ImGui::SetCursorScreenPos(origin);
  ImGui::InvisibleButton("margin", ImVec2(margin_w, total_h));
  const auto line_at = [&](float y) { return static_cast<int64_t>((y - top) / lh) + 1; };
  if (ImGui::IsItemHovered()) {
    const int64_t line = line_at(ImGui::GetIO().MousePos.y);
    if (ImGui::IsItemClicked() && line >= 1 && static_cast<size_t>(line) <= lines.size()) {
      selected_ = selected_ == static_cast<uint32_t>(line) ? 0 : static_cast<uint32_t>(line);
    }
    if (run != nullptr && line >= 1 && static_cast<size_t>(line) <= lines.size() && lines[line - 1].line_index >= 0) {
      for (const trace::LineFigures& f : figures_) {
        if (static_cast<int64_t>(f.line_index) == lines[line - 1].line_index) figures_tooltip(f);
      }
    }
  }

  // The editor: as tall as its text, so this child scrolls margin and text together.
  ImGui::SetCursorScreenPos(ImVec2(origin.x + margin_w, origin.y));
  ImGui::PushStyleColor(ImGuiCol_FrameBg, IM_COL32(0, 0, 0, 0));
  ImGui::PushStyleVar(ImGuiStyleVar_FrameBorderSize, 0.0f);
  ImGui::InputTextMultiline("##source", text_.data(), text_.capacity() + 1, ImVec2(text_w, total_h),
                            ImGuiInputTextFlags_AllowTabInput | ImGuiInputTextFlags_CallbackResize, on_input, &text_);
  const bool editing = ImGui::IsItemActive();
  ImGui::PopStyleVar();
  ImGui::PopStyleColor();
  // The cursor's line selects it (read from the widget's state: 1.86 has no getter).
  if (editing) {
    if (const ImGuiInputTextState* state = ImGui::GetInputTextState(ImGui::GetActiveID())) {
      const int cursor = std::clamp(state->Stb.cursor, 0, state->TextW.Size);  // in characters, not bytes
      const auto line = static_cast<uint32_t>(1 + std::count(state->TextW.Data, state->TextW.Data + cursor, '\n'));
      if (line != cursor_line_) {
        cursor_line_ = line;
        select_line(line);
      }
    }
    for (const KeyPress& k : presses) {
      if (k.ctrl && k.key == 'S') save_into(message);
    }
  }
  if (std::exchange(scroll_to_figures_, false) && selected_ == 0) {
    const auto first_figures = std::find_if(lines.begin(), lines.end(), [](const MarginLine& l) { return !l.text.empty(); });
    const float y = style.FramePadding.y + static_cast<float>(first_figures - lines.begin()) * lh;
    ImGui::SetScrollY(std::max(0.0f, y - lh));
  }
  if (scroll_to_selected_) {
    scroll_to_selected_ = false;
    const float y = style.FramePadding.y + static_cast<float>(selected_ - 1) * lh;
    if (y < scroll || y + lh > scroll + view_h - lh) ImGui::SetScrollY(std::max(0.0f, y - view_h / 3));
  }
  if (mono != nullptr) ImGui::PopFont();
  ImGui::EndChild();
}

}  // namespace asyncscope::app
