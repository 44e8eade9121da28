// GuiApp: wires the desktop app's panels to the session's runs. It owns the
// runs (RunList), the runner of the live one and the panels; lays them out
// (left: the program panel, wider with the script view in it when a script
// is picked; centre: the timeline; bottom: Results and Console tabs); carries out what the panels, the menu and the keyboard ask
// for (Action); and drives the scripted mode (--run, --vary, --screenshot,
// --quit-after-run, view FILE).
// Threading: UI thread only.
#pragma once

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

namespace asyncscope::app {

class GuiApp {
 public:
  GuiApp(Window& window, const GuiRequest& request);

  // Draws one frame. Returns false when the app should quit.
  bool frame();
  // True while something changes without input (a run is live).
  bool animating() const { return runner_.busy() || pending_screenshot_frames_ > 0; }
  // The PNG the next end_frame should capture ("" = none); cleared when taken.
  std::string take_screenshot_request();
  void screenshot_done(const std::string& error);
  int exit_code() const noexcept { return exit_code_; }
  // A run is going on (the app's end will stop it).
  bool running() const noexcept { return runner_.busy(); }

 private:
  // False when it did not start (a run is live, too much memory asked, a script unreadable).
  bool start_run();
  // Reads the live run's new events and lines; once it ended, keeps its
  // outcome and goes on with the script (the next --vary value, the screenshot).
  void poll_run();
  void act(Action action);
  // "" or why not (for the path dialog).
  std::string open_trace(const std::string& path);
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
