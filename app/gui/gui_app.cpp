#include "app/gui/gui_app.h"

#include <imgui.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/gui/window.h"
#include "engine/trace/chrome_trace.h"
#include "engine/base/allocator.h"

namespace asyncscope::app {
namespace {

std::string params_text(const demos::ParamValues& values) {
  std::string s;
  for (const demos::Param& p : values.specs()) {
    if (!s.empty()) s.push_back(' ');
    s.append(p.name).append("=").append(values.text(p.name));
  }
  return s;
}

// Demo explanations from assets/demos/NAME.md (see the README for where they are looked up).
std::map<std::string, std::string> load_explanations() {
  std::map<std::string, std::string> out;
  std::vector<std::filesystem::path> roots;
  if (const char* env = std::getenv("ASYNCSCOPE_ASSETS"); env && *env) roots.emplace_back(env);
  roots.emplace_back(ASYNCSCOPE_ASSETS_DIR);
  for (const auto& demo : demos::all_demos()) {
    for (const auto& root : roots) {
      std::ifstream in(root / "demos" / (demo->name() + ".md"));
      if (!in) continue;
      out[demo->name()] = std::string(std::istreambuf_iterator<char>(in), {});
      break;
    }
  }
  return out;
}

std::string default_file_name(const std::string& stem, const char* extension) {
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", std::localtime(&now));
  return stem + "-" + stamp + extension;
}

const demos::Program* demo_or_default(const std::string& name) {
  if (const demos::Program* d = demos::find_demo(name.empty() ? "sync-vs-async" : name)) return d;
  return demos::all_demos().front().get();
}

}  // namespace

std::string RunRecord::title() const {
  if (!source.empty()) return std::filesystem::path(source).filename().string();
  return "run " + std::to_string(number) + ": " + demo;
}

GuiApp::GuiApp(Window& window, const GuiRequest& request)
    : window_(window), request_(request), explanations_(load_explanations()) {
  select_demo(demo_or_default(request.demo));
  for (const auto& [name, text] : request.params) values_->set(name, text);
  if (!request.view_file.empty()) open_trace(request.view_file);
  if (request.run) {
    if (!request.vary.empty()) values_->set(request.vary, request.vary_values[next_vary_++]);
    start_run();
  }
  quit_when_done_ = request.quit_after_run;
  // A scripted screenshot has no user: ignore the pointer, wherever the X
  // server left it, so no hover tooltip lands in the picture.
  // It also neither reads nor writes the user's saved layout, so pictures
  // are reproducible.
  if (!request.screenshot.empty()) {
    ImGui::GetIO().ConfigFlags |= ImGuiConfigFlags_NoMouse;
    ImGui::GetIO().IniFilename = nullptr;
  }
  if (!request.screenshot.empty() && !request.run) pending_screenshot_frames_ = 3;
}

void GuiApp::select_demo(const demos::Program* demo) {
  demo_ = demo;
  values_.emplace(demo->defaults());
  knob_errors_.clear();
  window_.set_title("asyncscope: " + demo->title());
}

RunRecord* GuiApp::current() { return current_ >= 0 ? runs_[static_cast<size_t>(current_)].get() : nullptr; }
RunRecord* GuiApp::compared() {
  return compare_ >= 0 && compare_ != current_ ? runs_[static_cast<size_t>(compare_)].get() : nullptr;
}

void GuiApp::start_run() {
  if (runner_.busy()) return;
  const int64_t need = demo_->estimate_bytes(*values_);
  const int64_t budget = PooledAllocator::default_budget_bytes();
  if (need > budget) {
    char msg[256];
    std::snprintf(msg, sizeof(msg), "These settings need about %.1f GB of arrays, more than the %.1f GB budget.",
                  static_cast<double>(need) / 1e9, static_cast<double>(budget) / 1e9);
    status_ = msg;
    status_is_error_ = true;
    return;
  }
  runner_.start(*demo_, *values_);
  auto record = std::make_unique<RunRecord>();
  record->number = next_run_number_++;
  record->demo = demo_->name();
  record->params_text = params_text(*values_);
  record->recorder = runner_.recorder();
  record->reader = std::make_unique<trace::TraceReader>(*record->recorder);
  record->views = demo_->views();
  record->live = true;
  record->timeline.follow_live = true;
  runs_.push_back(std::move(record));
  // The previous run becomes the comparison by default, when it is the same demo.
  if (current_ >= 0 && runs_[static_cast<size_t>(current_)]->demo == demo_->name()) compare_ = current_;
  show_run(static_cast<int>(runs_.size()) - 1);
  status_ = "Running " + demo_->name() + "…";
  status_is_error_ = false;
}

void GuiApp::poll_run() {
  RunRecord* run = current();
  if (run == nullptr || !run->live) return;
  run->reader->update(run->model);
  for (std::string& line : runner_.console_since(run->console.size())) run->console.push_back(std::move(line));
  if (runner_.busy()) return;
  runner_.join();
  run->reader->update(run->model);
  for (std::string& line : runner_.console_since(run->console.size())) run->console.push_back(std::move(line));
  run->live = false;
  run->results = runner_.results();
  switch (runner_.state()) {
    case ProgramRunner::State::finished:
      status_ = "Finished " + run->title() + ".";
      status_is_error_ = false;
      break;
    case ProgramRunner::State::cancelled:
      status_ = "Stopped " + run->title() + ": pending ops were dropped.";
      status_is_error_ = false;
      break;
    default:
      run->error = runner_.error();
      status_ = run->title() + " failed: " + run->error;
      status_is_error_ = true;
      if (quit_when_done_) exit_code_ = 1;
      break;
  }
  widgets::FitTimeline(run->timeline, run->model);
  rebuild_result_columns();
  if (runner_.state() == ProgramRunner::State::finished && next_vary_ < request_.vary_values.size()) {
    values_->set(request_.vary, request_.vary_values[next_vary_++]);
    start_run();
    return;
  }
  if (!request_.screenshot.empty() || quit_when_done_) pending_screenshot_frames_ = 3;
}

void GuiApp::show_run(int index) {
  current_ = index;
  graph_ops_seen_ = 0;
  rebuild_result_columns();
}

void GuiApp::rebuild_result_columns() {
  result_columns_.clear();
  for (size_t i = 0; i < runs_.size(); ++i) {
    const RunRecord& r = *runs_[i];
    widgets::ResultColumn column;
    column.title = r.title();
    column.subtitle = r.live ? "running…" : r.error.empty() ? r.params_text : "failed: " + r.error;
    column.current = static_cast<int>(i) == current_;
    if (r.results) {
      for (const demos::Result& row : r.results->rows) column.cells.push_back({row.key, row.label, row.value, row.unit});
    }
    if (!r.source.empty()) {
      column.subtitle = r.source;
      column.cells.push_back({"ops", "ops in the trace", static_cast<double>(r.model.ops.size()), ""});
    }
    result_columns_.push_back(std::move(column));
  }
}

void GuiApp::open_trace(const std::string& path) {
  try {
    auto record = std::make_unique<RunRecord>();
    record->model = trace::read_chrome_trace(path);
    record->number = next_run_number_++;
    record->source = path;
    record->demo = "trace";
    widgets::FitTimeline(record->timeline, record->model);
    record->timeline.follow_live = false;
    runs_.push_back(std::move(record));
    show_run(static_cast<int>(runs_.size()) - 1);
    status_ = "Opened " + path + ".";
    status_is_error_ = false;
    popup_error_.clear();
  } catch (const std::exception& e) {
    status_ = e.what();
    status_is_error_ = true;
    popup_error_ = e.what();
  }
}

void GuiApp::export_trace(const std::string& path) {
  RunRecord* run = current();
  if (run == nullptr) {
    popup_error_ = "There is no run to export yet: press Space to run the demo.";
    return;
  }
  try {
    trace::write_chrome_trace(run->model, path, {run->title(), -1});
    status_ = "Exported " + run->title() + " to " + path + " (opens in ui.perfetto.dev and chrome://tracing).";
    status_is_error_ = false;
    popup_error_.clear();
    popup_ = Popup::none;
  } catch (const std::exception& e) {
    popup_error_ = e.what();
  }
}

std::string GuiApp::take_screenshot_request() {
  if (pending_screenshot_frames_ > 0 && --pending_screenshot_frames_ == 0) {
    if (!request_.screenshot.empty()) return last_screenshot_ = request_.screenshot;
    if (quit_when_done_) quit_ = true;
  }
  if (!screenshot_request_.empty()) last_screenshot_ = screenshot_request_;
  return std::exchange(screenshot_request_, "");
}

void GuiApp::screenshot_done(const std::string& error) {
  if (!error.empty()) {
    status_ = error;
    status_is_error_ = true;
    exit_code_ = 1;
  } else if (popup_ == Popup::none) {
    status_ = "Saved a screenshot to " + std::filesystem::absolute(last_screenshot_).string() + ".";
    status_is_error_ = false;
  }
  if (quit_when_done_ && !runner_.busy()) quit_ = true;
}

void GuiApp::act(Action action) {
  RunRecord* run = current();
  switch (action) {
    case Action::toggle_run:
      runner_.busy() ? runner_.stop() : start_run();
      break;
    case Action::fit:
      if (run) {
        widgets::FitTimeline(run->timeline, run->model);
        run->timeline.follow_live = false;
      }
      break;
    case Action::toggle_follow:
      if (run) run->timeline.follow_live = !run->timeline.follow_live;
      break;
    case Action::export_trace:
      popup_ = Popup::export_trace;
      std::snprintf(path_buffer_, sizeof(path_buffer_), "%s",
                    default_file_name("asyncscope-" + (run ? run->demo : demo_->name()), ".json").c_str());
      break;
    case Action::open_trace:
      popup_ = Popup::open;
      path_buffer_[0] = '\0';
      break;
    case Action::screenshot:
      screenshot_request_ = default_file_name("asyncscope", ".png");
      break;
    case Action::quit:
      quit_ = true;
      break;
  }
}

void GuiApp::handle_shortcuts() {
  presses_ = window_.take_key_presses();
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput || popup_ != Popup::none) return;
  // GLFW's key codes: letters are their ASCII capitals, space is ' '.
  struct Binding {
    bool ctrl;
    int key;
    Action action;
  };
  static constexpr Binding kBindings[] = {
      {false, ' ', Action::toggle_run},  {false, 'F', Action::fit},        {false, 'L', Action::toggle_follow},
      {true, 'S', Action::export_trace}, {true, 'O', Action::open_trace},  {true, 'P', Action::screenshot},
      {true, 'Q', Action::quit},
  };
  for (const KeyPress& k : presses_) {
    for (const Binding& b : kBindings) {
      if (b.ctrl == k.ctrl && b.key == k.key) act(b.action);
    }
  }
}

bool GuiApp::frame() {
  poll_run();
  handle_shortcuts();
  const ImGuiViewport* viewport = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(viewport->WorkPos);
  ImGui::SetNextWindowSize(viewport->WorkSize);
  ImGui::Begin("asyncscope", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_MenuBar | ImGuiWindowFlags_NoBringToFrontOnFocus |
                   ImGuiWindowFlags_NoSavedSettings);
  draw_menu();
  const float scale = window_.scale();
  const float left = 330 * scale;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  ImGui::BeginChild("left", ImVec2(left, avail.y), true);
  draw_left_panel(left);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("right", ImVec2(0, avail.y), false);
  const float results_height = std::max(170.0f * scale, avail.y * 0.26f);
  draw_centre(ImGui::GetContentRegionAvail().y - results_height - ImGui::GetStyle().ItemSpacing.y);
  draw_results(results_height);
  ImGui::EndChild();
  ImGui::End();
  draw_popups();
  return !quit_;
}

}  // namespace asyncscope::app
