#include "app/gui/gui_app.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <functional>
#include <utility>

#include "app/gui/menu_bar.h"
#include "engine/base/allocator.h"
#include "engine/demos/registry.h"

namespace asyncscope::app {
namespace {

std::string default_file_name(const std::string& stem, const char* extension) {
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", std::localtime(&now));
  return stem + "-" + stamp + extension;
}

const demos::Program& program_or_default(const std::string& name) {
  if (const demos::Program* p = demos::find_demo(name.empty() ? "sync-vs-async" : name)) return *p;
  return *demos::all_demos().front();
}

}  // namespace

GuiApp::GuiApp(Window& window, const GuiRequest& request)
    : window_(window),
      request_(request),
      runner_(window.driver_threads()),
      program_panel_(program_or_default(request.demo)) {
  scripts_.load_examples(ScriptLibrary::examples_folder());
  program_panel_.set_scripts(&scripts_.programs());
  quit_when_done_ = request.quit_after_run;
  bool ready = true;
  if (!request.script.empty()) {
    if (std::string why = open_script(request.script); !why.empty()) {
      set_status(why, true);
      ready = false;
    }
  }
  tab_to_front_ = request.tab;
  for (const auto& [name, text] : request.params) program_panel_.values().set(name, text);
  update_title();
  if (!request.view_file.empty() && !open_trace(request.view_file).empty()) ready = false;  // shown in the status line
  if (request.attach_pid > 0) {
    if (std::string why = attach(request.attach_pid, request.attach_from_start); !why.empty()) {
      set_status(why, true);
      ready = false;
    }
  }
  if (ready && !request.view_other.empty() && !open_trace(request.view_other).empty()) ready = false;
  // A scripted run starts once the window has drawn its first frames (the
  // font atlas and the renderer's shaders are made then: over 100 ms of CPU
  // under a software renderer), so they do not land in the run.
  if (request.run && ready) {
    if (!request.vary.empty()) program_panel_.values().set(request.vary, request.vary_values[next_vary_++]);
    frames_before_run_ = kSettlingFrames;
  }
  // Whatever happens, --quit-after-run quits (after the screenshot, if any):
  // at once when there is nothing to run, with exit 1 when what was asked
  // for could not be done.
  // Attached: the screenshot and the quit come once the program has ended.
  if (!ready || (!request.run && attached_ == nullptr)) {
    schedule_scripted_end();
    if (!ready && quit_when_done_) exit_code_ = 1;
  }
  // A scripted screenshot has no user: ignore the pointer, wherever the X
  // server left it, so no hover tooltip lands in the picture.
  // It also neither reads nor writes the user's saved layout, so pictures
  // are reproducible.
  if (!request.screenshot.empty()) {
    ImGui::GetIO().ConfigFlags |= ImGuiConfigFlags_NoMouse;
    ImGui::GetIO().IniFilename = nullptr;
  }
}

void GuiApp::set_status(std::string text, bool is_error) {
  status_.text = std::move(text);
  status_.is_error = is_error;
}

void GuiApp::update_title() {
  const demos::Program& program = program_panel_.program();
  if (titled_ == &program) return;
  titled_ = &program;
  window_.set_title("asyncscope: " + program.title());
}

bool GuiApp::start_run() {
  // A run whose thread just ended is still live until poll_run has kept its outcome.
  if (runner_.busy() || runs_.live() != nullptr) return false;
  // A script runs the editor's text, saved or not, so the figures match the lines shown.
  const demos::Program* picked = &program_panel_.program();
  if (picked_script() != nullptr) {
    picked = &scripts_.run_buffer(*picked, script_view_.text());
    script_view_.ran(script_view_.text());
  }
  const demos::Program& program = *picked;
  const demos::ParamValues& values = program_panel_.values();
  const int64_t need = program.estimate_bytes(values);
  const int64_t budget = PooledAllocator::default_budget_bytes();
  if (need > budget) {
    char msg[256];
    std::snprintf(msg, sizeof(msg),
                  "These settings need about %.1f GB of memory (arrays, their trace and pending ops), more than the "
                  "%.1f GB budget.",
                  static_cast<double>(need) / 1e9, static_cast<double>(budget) / 1e9);
    set_status(msg, true);
    return false;
  }
  runner_.start(program, values);
  run_started_ = std::chrono::steady_clock::now();
  runs_.add_live(program, values, runner_.recorder());
  set_status("Running " + program.name() + "…");
  return true;
}

std::string GuiApp::open_script(const std::string& path) {
  try {
    const demos::Program& script = scripts_.open(path);
    if (path != script_view_.path()) {
      if (std::string why = script_view_.load(path); !why.empty()) return why;
    }
    program_panel_.select(script);
    set_status("Opened " + path + ": press " + std::string(shortcut_label(Action::run)) + " to run it.");
    return "";
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
}

const std::string* GuiApp::picked_script() {
  const std::string* path = ScriptLibrary::path_of(program_panel_.program());
  if (path != nullptr && *path != script_view_.path()) {
    if (std::string why = script_view_.load(*path); !why.empty()) set_status(why, true);
  }
  return path;
}

void GuiApp::link_script_and_timeline() {
  RunRecord* run = runs_.current();
  if (run == nullptr || picked_script() == nullptr) return;
  if (run->number != linked_run_) {
    linked_run_ = run->number;
    linked_op_ = run->timeline.selected_op;
  } else if (run->timeline.selected_op != linked_op_) {
    linked_op_ = run->timeline.selected_op;
    script_view_.select_line_of_op(run->model, linked_op_);
  }
  run->timeline.highlight_line = script_view_.selected_index(run);
}

int GuiApp::frame_rate() const {
  constexpr double kRunRenderShare = 0.2;  // of one core
  constexpr int kMinRunFps = 2, kMaxRunFps = 30;
  if (!runner_.busy() && attached_ == nullptr) return 60;
  const double cost = window_.frame_cpu_seconds();
  if (cost <= 0) return kMaxRunFps;
  return static_cast<int>(std::clamp(kRunRenderShare / cost, double{kMinRunFps}, double{kMaxRunFps}));
}

void GuiApp::schedule_scripted_end() {
  if (!request_.screenshot.empty() || quit_when_done_) pending_screenshot_frames_ = kSettlingFrames;
}

bool GuiApp::update() {
  if (frames_before_run_ > 0) return true;
  if (frames_before_run_ == 0) {
    frames_before_run_ = -1;
    if (!start_run()) {  // the reason is in the status line
      schedule_scripted_end();
      if (quit_when_done_) exit_code_ = 1;
      return true;
    }
  }
  // Most runs at their defaults end within half a second, before a person
  // could follow them frame by frame: until then the live run is neither
  // read nor drawn (reading a fast run's trace and drawing a software-
  // rendered frame cost tens of ms of CPU each), unless input draws a frame.
  const bool starting =
      runner_.busy() && std::chrono::steady_clock::now() - run_started_ < std::chrono::milliseconds(500);
  const bool polled = poll_run(!starting) | poll_attached();
  if (pending_screenshot_frames_ > 0) return true;
  if (!runner_.busy()) return polled;
  if (starting) return false;
  const double progress = runner_.progress();
  std::string text = runner_.progress_text();
  const bool moved = progress != drawn_progress_ || text != drawn_progress_text_;
  drawn_progress_ = progress;
  drawn_progress_text_ = std::move(text);
  return polled || moved;
}

bool GuiApp::poll_run(bool read_trace) {
  RunRecord* run = runs_.live();
  if (run == nullptr || attached_ != nullptr) return false;  // an attached program: poll_attached
  const bool ended = !runner_.busy();
  // Joined first, so the last read below sees everything the run wrote.
  if (ended) runner_.join();
  // A live run not shown is read when it is shown again, or when it ends.
  const bool shown = run == runs_.current() || run == runs_.compared();
  bool last_open = false;
  std::vector<std::string> lines = runner_.console_since(run->console_resume_at(), &last_open);
  const bool changed = runs_.update_live(std::move(lines), shown && read_trace, last_open);
  if (!ended) return changed;

  const ProgramRunner::State state = runner_.state();
  std::string error = state == ProgramRunner::State::failed ? runner_.error() : "";
  switch (state) {
    case ProgramRunner::State::finished:
      set_status("Finished " + run->title() + ".");
      break;
    case ProgramRunner::State::cancelled:
      set_status("Stopped " + run->title() + ": pending ops were dropped.");
      break;
    default:
      set_status(run->title() + " failed: " + error, true);
      if (quit_when_done_) exit_code_ = 1;
      break;
  }
  runs_.end_live(runner_.results(), std::move(error));
  // What it printed comes to the front, unless the command line both ran it
  // and asked for a tab (--run --tab insight): that tab stays for its screenshot.
  const bool asked_tab = request_.run && !request_.tab.empty();
  if (runs_.current() == run && console_first_after(*run) && !asked_tab) console_to_front_ = true;
  if (state == ProgramRunner::State::finished && next_vary_ < request_.vary_values.size()) {
    program_panel_.values().set(request_.vary, request_.vary_values[next_vary_++]);
    if (start_run()) return true;
    if (quit_when_done_) exit_code_ = 1;  // refused: the script ends here, the reason in the status line
  }
  // The scripted run is over (finished, failed, stopped or refused): screenshot, then quit if asked.
  schedule_scripted_end();
  return true;
}

std::string GuiApp::attach(int pid, bool from_start) {
  if (runner_.busy() || runs_.has_live()) {
    return "A run is live: stop it (or wait for its end) before attaching to another program.";
  }
  try {
    trace::LiveClient::Options options;
    if (!from_start) {
      options.from_ns = trace::now_ns() - std::chrono::duration_cast<std::chrono::nanoseconds>(trace::kDefaultCatchUp).count();
    }
    attached_ = std::make_unique<trace::LiveClient>(pid, options);
  } catch (const std::exception& e) {
    return e.what();
  }
  const trace::LiveHello& hello = attached_->hello();
  runs_.add_attached(hello.title + " (pid " + std::to_string(pid) + ")", attached_->recorder());
  run_started_ = std::chrono::steady_clock::now();
  // Its script, when it is a file: the script view shows its per-line figures.
  std::istringstream words(hello.command);
  for (std::string word; words >> word;) {
    if (word.size() < 4 || word.compare(word.size() - 3, 3, ".py") != 0) continue;
    const std::filesystem::path path = std::filesystem::path(hello.cwd) / word;
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) open_script(path.lexically_normal().string());
    break;
  }
  set_status("Attached to process " + std::to_string(pid) + " (" + hello.title + "): following it live. " +
             (shortcut_label(Action::toggle_run) ? std::string(shortcut_label(Action::toggle_run)) : std::string("Stop")) +
             " detaches (the program goes on).");
  return "";
}

bool GuiApp::poll_attached() {
  RunRecord* run = runs_.live();
  if (attached_ == nullptr || run == nullptr) return false;
  // Read after the state: once it says ended, everything that arrived is in the recorder.
  const trace::LiveClient::State state = attached_->state();
  const bool ended = state != trace::LiveClient::State::streaming;
  const bool shown = run == runs_.current() || run == runs_.compared();
  const bool changed = runs_.update_live({}, shown || ended);
  if (!ended) return changed;
  const bool lost = state == trace::LiveClient::State::lost;
  std::string message = attached_->message();
  if (attached_->dropped() > 0) {
    message += " (" + std::to_string(attached_->dropped()) + " events were dropped by the program's recorder)";
  }
  runs_.end_live(std::nullopt, lost ? message : "");
  set_status(run->title() + ": " + message, lost);
  attached_.reset();
  schedule_scripted_end();
  return true;
}

std::string GuiApp::open_trace(const std::string& path) {
  try {
    trace::AnalysisOptions options;
    options.complete_steps_only = request_.complete_steps;
    const RunRecord& record = runs_.open_trace(path, options);
    const std::string skipped = pick_origin(record.origin);
    set_status("Opened " + path + (record.profile ? std::string(" (") + trace::to_string(record.profile->format) + ")" : "") +
               (!record.notes.empty() ? ": " + record.notes.front() : !skipped.empty() ? ": " + skipped : "."));
    return "";
  } catch (const std::exception& e) {
    set_status(e.what(), true);
    return e.what();
  }
}

std::string GuiApp::pick_origin(const trace::RunOrigin& origin) {
  // The program panel shows what made the trace, with its knobs, so Run
  // runs it again here; not while a run of another program is live.
  if (origin.empty() || runner_.busy() || runs_.has_live()) return "";
  const demos::Program* program = demos::find_demo(origin.program);
  if (program == nullptr) {
    for (const demos::Program* p : scripts_.programs()) {
      if (p->name() == origin.program) program = p;
    }
  }
  if (program == nullptr) return "";  // a script of the user's: its knobs mean nothing without it
  if (const std::string* script = ScriptLibrary::path_of(*program)) {
    if (!open_script(*script).empty()) return "";
  } else {
    program_panel_.select(*program);
  }
  const std::vector<std::string> skipped = demos::apply_origin(origin, program_panel_.values());
  return skipped.empty() ? "" : "knobs not set: " + skipped.front();
}

std::string GuiApp::export_trace(const std::string& path) {
  const RunRecord* run = runs_.current();
  if (run == nullptr) {
    return std::string("There is no run to export yet: press ") + shortcut_label(Action::run) + " to run the demo.";
  }
  try {
    app::export_trace(*run, path);
    set_status("Exported " + run->title() + " to " + path + " (opens in ui.perfetto.dev and chrome://tracing).");
    return "";
  } catch (const std::exception& e) {
    return e.what();
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
    set_status(error, true);
    exit_code_ = 1;
  } else if (!dialogs_.is_open()) {
    set_status("Saved a screenshot to " + std::filesystem::absolute(last_screenshot_).string() + ".");
  }
  if (quit_when_done_ && !runner_.busy()) quit_ = true;
}

// The number of simulated GPUs is fixed for a process once read
// (engine/core/device.h): the app starts again, with the same command line
// and --simulated-gpus N, in place of this process.
void GuiApp::restart_with_simulated_gpus(int n) {
  std::ifstream cmdline("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  for (std::string arg; std::getline(cmdline, arg, '\0');) args.push_back(arg);
  if (args.empty()) {
    set_status("Cannot restart the app: its command line is unknown (/proc/self/cmdline).", true);
    return;
  }
  const std::vector<std::string> next = with_simulated_gpus(args, n);
  std::vector<char*> argv;
  for (const std::string& a : next) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execv("/proc/self/exe", argv.data());
  set_status(std::string("Cannot restart the app with ") + std::to_string(n) + " simulated GPUs: " +
                 std::strerror(errno),
             true);
}

void GuiApp::act(Action action) {
  RunRecord* run = runs_.current();
  switch (action) {
    case Action::run:
      start_run();
      break;
    case Action::stop:
      if (attached_) {
        attached_->detach();
      } else {
        runner_.stop();
      }
      break;
    case Action::toggle_run:
      act(runner_.busy() || attached_ ? Action::stop : Action::run);
      break;
    case Action::fit:
      if (run) {
        runs_.fit(*run);
        run->timeline.follow_live = false;
      }
      break;
    case Action::toggle_follow:
      if (run) run->timeline.follow_live = !run->timeline.follow_live;
      break;
    case Action::export_trace: {
      const std::string stem = "asyncscope-" + (run ? run->program : program_panel_.program().name());
      dialogs_.ask_path({"Export trace", "Write the current run's trace to:", "Export", default_file_name(stem, ".json"),
                         [this](const std::string& path) { return export_trace(path); }});
      break;
    }
    case Action::open_trace:
      dialogs_.ask_path({"Open trace", "Trace file (written by asyncscope) to open:", "Open", "",
                         [this](const std::string& path) { return open_trace(path); }});
      break;
    case Action::open_script: {
      const std::filesystem::path examples = ScriptLibrary::examples_folder();
      dialogs_.ask_path({"Open script", "Python script to open (it runs on the engine, like asyncscope script):", "Open",
                         examples.empty() ? "" : (examples / "").string(),
                         [this](const std::string& path) { return open_script(path); }});
      break;
    }
    case Action::attach:
      dialogs_.ask_attach([this](int pid) { return attach(pid, false); });
      break;
    case Action::screenshot:
      screenshot_request_ = default_file_name("asyncscope", ".png");
      break;
    case Action::about:
      dialogs_.show_about();
      break;
    case Action::quit:
      quit_ = true;
      break;
  }
}

bool GuiApp::frame() {
  if (frames_before_run_ > 0) --frames_before_run_;
  presses_ = window_.take_key_presses();
  if (!ImGui::GetIO().WantTextInput) {
    for (const KeyPress& k : presses_) {
      const auto action = action_for_key(k);
      // While a dialog is up only the screenshot key acts (a picture of the dialog).
      if (action && (!dialogs_.is_open() || *action == Action::screenshot)) act(*action);
    }
  }
  const ImGuiViewport* viewport = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(viewport->WorkPos);
  ImGui::SetNextWindowSize(viewport->WorkSize);
  ImGui::Begin("asyncscope", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_MenuBar | ImGuiWindowFlags_NoBringToFrontOnFocus |
                   ImGuiWindowFlags_NoSavedSettings);
  std::optional<int> simulated;
  if (const auto action = draw_menu_bar(runs_, runner_.busy() || attached_ != nullptr, simulated)) act(*action);
  if (simulated) restart_with_simulated_gpus(*simulated);
  const float scale = window_.scale();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  // A script's source wants the width: the left panel grows while one is picked.
  const bool script = picked_script() != nullptr;
  const float left_width = script ? std::max(330 * scale, avail.x * 0.47f) : 330 * scale;
  ImGui::BeginChild("left", ImVec2(left_width, avail.y), true);
  RunProgress progress{runner_.busy(), runner_.progress(), runner_.busy() ? runner_.progress_text() : ""};
  if (attached_) {
    progress.running = true;
    progress.text = "attached to process " + std::to_string(attached_->hello().pid) + ": " +
                    std::to_string(attached_->bytes_received() / 1024) + " KB received";
    if (const uint64_t dropped = attached_->dropped(); dropped > 0) {
      progress.text += ", " + std::to_string(dropped) + " events dropped by the program's recorder";
    }
  }
  std::function<void()> body;
  if (script) {
    body = [this] {
      const StatusLine message = script_view_.draw(runs_.current(), window_.mono_font(), presses_);
      if (!message.text.empty()) set_status(message.text, message.is_error);
    };
  }
  if (const auto action = program_panel_.draw(progress, status_, body)) act(*action);
  ImGui::EndChild();
  update_title();
  ImGui::SameLine();
  ImGui::BeginChild("right", ImVec2(0, avail.y), false);
  const float bottom_height = std::max(170.0f * scale, avail.y * 0.26f);
  timeline_panel_.draw(runs_.current(), runs_.compared(),
                       ImGui::GetContentRegionAvail().y - bottom_height - ImGui::GetStyle().ItemSpacing.y);
  draw_bottom(bottom_height);
  ImGui::EndChild();
  ImGui::End();
  link_script_and_timeline();
  dialogs_.draw(scale, presses_);
  return !quit_;
}

void GuiApp::draw_bottom(float height) {
  // Tabs rather than a split: the results table needs the width (a column
  // per run) and the console the long lines; the compact tab row costs the
  // table about one row of height, and the timeline nothing.
  const float scale = window_.scale();
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(10 * scale, 4 * scale));
  ImGui::BeginChild("bottom", ImVec2(0, height), true);
  ImGui::PopStyleVar();
  // Only the height: ImGui 1.86 sizes tabs with the unpushed padding.
  ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(ImGui::GetStyle().FramePadding.x, 2 * scale));
  const bool tabs = ImGui::BeginTabBar("bottom tabs");
  ImGui::PopStyleVar();
  if (tabs) {
    const std::string front = std::exchange(tab_to_front_, std::string());
    const auto flags_for = [&front](const char* tab) {
      return front == tab ? ImGuiTabItemFlags_SetSelected : ImGuiTabItemFlags_None;
    };
    if (ImGui::BeginTabItem("Results", nullptr, flags_for("results"))) {
      results_panel_.draw(runs_);
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Insight", nullptr, flags_for("insight"))) {
      insight_panel_.draw(runs_.current(), runs_.compared());
      ImGui::EndTabItem();
    }
    const ImGuiTabItemFlags console_flags =
        std::exchange(console_to_front_, false) || front == "console" ? ImGuiTabItemFlags_SetSelected : 0;
    if (ImGui::BeginTabItem(console_tab_label(runs_.current()).c_str(), nullptr, console_flags)) {
      console_panel_.draw(runs_.current(), window_.mono_font());
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
  ImGui::EndChild();
}

}  // namespace asyncscope::app
