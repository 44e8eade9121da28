// GuiApp: the panels of the desktop app and the runs of this session.
// Left: demo picker, explanation, knobs, Run/Stop, progress. Centre: the
// timeline of the current run (with the op graph for dependency-graph, or a
// second run stacked below to compare). Bottom: the result tables of every
// run side by side.
// Threading: UI thread only.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/gui/gui.h"
#include "app/gui/runner.h"
#include "app/gui/window.h"
#include "engine/demos/program.h"
#include "engine/demos/registry.h"
#include "engine/trace/model.h"
#include "engine/trace/op_graph.h"
#include "widgets/op_graph_view.h"
#include "widgets/results_table.h"
#include "widgets/timeline.h"

namespace asyncscope::app {

class Window;

// One run of this session (or a trace opened from a file).
struct RunRecord {
  int number = 0;
  std::string demo;
  std::string params_text;
  std::string source;  // "" for a live run, else the file it was read from
  std::shared_ptr<trace::Recorder> recorder;
  std::unique_ptr<trace::TraceReader> reader;
  trace::TraceModel model;
  widgets::TimelineState timeline;
  std::optional<demos::Results> results;
  demos::ProgramViews views;          // what the program wants beside the timeline
  std::vector<std::string> console;   // the lines the program printed
  std::string error;
  bool live = false;

  std::string title() const;
};

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

 private:
  void select_demo(const demos::Program* demo);
  void start_run();
  void poll_run();
  void open_trace(const std::string& path);
  // Makes run `index` the one shown, and refreshes what depends on that.
  void show_run(int index);
  // The result table's columns change only when runs start, end or are shown:
  // built then, not every frame.
  void rebuild_result_columns();
  void export_trace(const std::string& path);
  // What the menu, the buttons and the shortcuts can do: one place each.
  enum class Action { toggle_run, fit, toggle_follow, export_trace, open_trace, screenshot, quit };
  void act(Action action);
  void handle_shortcuts();

  void draw_menu();
  void draw_left_panel(float width);
  void draw_knobs();
  void draw_centre(float height);
  void draw_results(float height);
  void draw_popups();
  void draw_status_line();
  RunRecord* current();
  RunRecord* compared();

  Window& window_;
  const GuiRequest request_;
  const demos::Program* demo_ = nullptr;
  std::optional<demos::ParamValues> values_;
  std::map<std::string, std::string> explanations_;
  std::map<std::string, std::string> knob_errors_;
  ProgramRunner runner_;
  std::vector<std::unique_ptr<RunRecord>> runs_;
  int current_ = -1;
  int compare_ = -1;
  int next_run_number_ = 1;
  size_t next_vary_ = 0;  // index of the next --vary value to run
  std::vector<widgets::ResultColumn> result_columns_;
  widgets::OpGraphViewState graph_state_;
  trace::OpGraph graph_;
  size_t graph_ops_seen_ = 0;

  std::string status_;  // the last message for the user (errors in red)
  bool status_is_error_ = false;
  std::string screenshot_request_;
  std::string last_screenshot_;  // the file the pending screenshot goes to
  int pending_screenshot_frames_ = 0;  // frames to draw before the scripted screenshot
  bool quit_when_done_ = false;
  bool quit_ = false;
  int exit_code_ = 0;

  enum class Popup { none, open, export_trace, screenshot, about };
  Popup popup_ = Popup::none;
  char path_buffer_[1024] = {};
  std::string popup_error_;
  std::vector<KeyPress> presses_;  // this frame's key presses (see Window::take_key_presses)
};

}  // namespace asyncscope::app
