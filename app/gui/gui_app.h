// GuiApp: wires the desktop app's panels to the session's runs. It owns the
// runs (RunList), the runner of the live one and the panels; lays them out
// (left: the program panel, wider with the script view in it when a script
// is picked; centre: the timeline; bottom: Results, Insight and Console
// tabs); carries out what the panels, the menu and the keyboard ask for
// (Action); and drives the scripted mode (--run, --vary, --screenshot,
// --quit-after-run, view FILE).
// Threading: UI thread only.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/gui/actions.h"
#include "app/gui/console_panel.h"
#include "app/gui/dialogs.h"
#include "app/gui/gui.h"
#include "app/gui/program_panel.h"
#include "app/gui/insight_panel.h"
#include "app/gui/results_panel.h"
#include "app/gui/run_list.h"
#include "app/gui/runner.h"
#include "app/gui/script_library.h"
#include "app/gui/script_view.h"
#include "app/gui/timeline_panel.h"
#include "app/gui/window.h"
#include "engine/trace/live.h"

namespace asyncscope::app {

class GuiApp {
 public:
  GuiApp(Window& window, const GuiRequest& request);

  // Starts the scripted run once the window drew its first frames; brings
  // the live run up to date (what it recorded and printed; once it ended,
  // its outcome and the script's next step); and says whether a frame
  // would show anything new: the live run is shown and its trace grew, it
  // printed or its progress moved (from its first half second on: before,
  // it is neither read nor drawn, so a run that short costs no frame), it
  // ended, or a scripted screenshot is due. Call before each frame; with no
  // input either, the frame can be skipped.
  bool update();
  // Draws one frame. Returns false when the app should quit.
  bool frame();
  // True while something changes without input (a run is live, up to the
  // frame that takes in its end: its thread ending wakes no one; or a
  // scripted run or screenshot is due).
  bool animating() const {
    return runner_.busy() || attached_ != nullptr || runs_.has_live() || pending_screenshot_frames_ > 0 ||
           frames_before_run_ >= 0;
  }
  // The most frames a second to draw while animating. While a run is live
  // the app shares the cores with it, and a frame's CPU is taken from what
  // the run measures: as many frames as fit in a fifth of one core
  // (Window::frame_cpu_seconds), from 2 to 30 a second (a software renderer
  // can spend tens of milliseconds on a large frame, which puts it near the
  // low end; docs/PERFORMANCE.md). 60 otherwise (the frames before a screenshot).
  int frame_rate() const;
  // The PNG the next end_frame should capture ("" = none); cleared when taken.
  std::string take_screenshot_request();
  void screenshot_done(const std::string& error);
  int exit_code() const noexcept { return exit_code_; }
  // The app is done (quit asked for, or a scripted run's screenshot taken
  // with --quit-after-run): no frame is to be waited for.
  bool quitting() const noexcept { return quit_; }
  // A run is going on (the app's end will stop it).
  bool running() const noexcept { return runner_.busy(); }
  // Stops a run still going and waits up to `limit` for it to end; whether
  // it did (a script blocked in a call that a stop cannot reach does not).
  bool stop_run_within(std::chrono::milliseconds limit) {
    runner_.stop();
    return runner_.wait_for_end(limit);
  }

 private:
  // False when it did not start (a run is live, too much memory asked, a script unreadable).
  bool start_run();
  // Reads the live run's new events (while it is shown, and if `read_trace`)
  // and lines; once it ended, reads the rest, keeps its outcome and goes on
  // with the script (the next --vary value, the screenshot). True when it
  // brought anything new.
  bool poll_run(bool read_trace = true);
  // Follows the program attached to (another process, trace::LiveClient) as
  // a live run, from trace::kDefaultCatchUp before now (or from its start);
  // "" or why not (for the dialog and the status line).
  std::string attach(int pid, bool from_start);
  // Reads what arrived from the attached program; once its stream ended
  // (it exited, was lost, or was detached), the run ends. True when anything changed.
  bool poll_attached();
  void act(Action action);
  // "" or why not (for the path dialog).
  std::string open_trace(const std::string& path);
  // Picks the program a trace of ours was made by (a demo, or an example
  // script) in the program panel with its knobs; "" or what was not set.
  std::string pick_origin(const trace::RunOrigin& origin);
  void restart_with_simulated_gpus(int n);
  std::string export_trace(const std::string& path);
  // Opens a script into the picker and the script view; "" or why not.
  std::string open_script(const std::string& path);
  // The script picked, loaded into the view when another was picked; null for a demo.
  const std::string* picked_script();
  // A click on an op selects its script line; the selected line is highlighted on the timeline.
  void link_script_and_timeline();
  void set_status(std::string text, bool is_error = false);
  // The window's title names the program picked.
  void update_title();
  void draw_bottom(float height);

  Window& window_;
  const GuiRequest request_;
  ProgramRunner runner_;
  std::unique_ptr<trace::LiveClient> attached_;  // the program followed live, while it is
  RunList runs_;
  ProgramPanel program_panel_;
  TimelinePanel timeline_panel_;
  ResultsPanel results_panel_;
  InsightPanel insight_panel_;
  ConsolePanel console_panel_;
  Dialogs dialogs_;
  ScriptLibrary scripts_;
  ScriptView script_view_;
  int linked_run_ = -1;       // RunRecord::number whose selected op the script view last followed
  int64_t linked_op_ = -1;
  StatusLine status_;
  const demos::Program* titled_ = nullptr;  // the program the window title names
  bool console_to_front_ = false;           // select the Console tab next frame
  std::string tab_to_front_;                 // select this bottom tab next frame ("results", "insight", "console")

  std::chrono::steady_clock::time_point run_started_;  // of the live run
  double drawn_progress_ = -1;                         // the live run's progress as last drawn
  std::string drawn_progress_text_;

  // Frames a scripted step waits for: the first frames make the font atlas
  // and the renderer's shaders, and a window just resized settles its layout.
  static constexpr int kSettlingFrames = 3;
  // After a scripted run (or at once without one): the screenshot, then the
  // quit, if the command line asked for them, kSettlingFrames frames on.
  void schedule_scripted_end();

  int frames_before_run_ = -1;  // frames to draw before the scripted run starts (-1: none is due)
  size_t next_vary_ = 0;  // index of the next --vary value to run
  std::string screenshot_request_;
  std::string last_screenshot_;        // the file the pending screenshot goes to
  int pending_screenshot_frames_ = 0;  // frames to draw before the scripted screenshot
  bool quit_when_done_ = false;
  bool quit_ = false;
  int exit_code_ = 0;
  std::vector<KeyPress> presses_;  // this frame's key presses (see Window::take_key_presses)
};

}  // namespace asyncscope::app
