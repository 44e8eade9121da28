// The desktop app's entry point and what the command line asks of it.
// Threading: main thread only.
#pragma once

#include <array>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace asyncscope::app {

// The bottom tabs a request may show first (GuiRequest::tab, --tab).
inline constexpr std::array<const char*, 3> kBottomTabs = {"results", "insight", "console"};

struct GuiRequest {
  std::string demo;  // "" = the first demo to show (sync-vs-async)
  std::string script;  // open this Python script instead of a demo (checked readable already)
  std::vector<std::pair<std::string, std::string>> params;  // demo parameter overrides, validated already
  bool run = false;             // start the demo at once
  // With --run: one run per value of this parameter, in order, in one
  // session (the last is shown over the one before it, results side by side).
  std::string vary;
  std::vector<std::string> vary_values;
  std::string screenshot;       // after the run (or at once without --run), save a PNG of the window here
  bool quit_after_run = false;  // exit once the run (and screenshot) is done
  std::string view_file;        // open this trace (ours or a profiler's)
  std::string view_other;       // and then this one, stacked below it to compare
  bool complete_steps = false;  // a profiler's trace: count only its complete ProfilerSteps, as HTA does
  int attach_pid = 0;           // follow this process's published trace live (asyncscope attach PID)
  bool attach_from_start = false;  // with attach_pid: all it recorded, not only from a moment before attaching
  std::string tab;              // the bottom tab shown first: "results" (default), "insight" or "console"
  int width = 1280;
  int height = 800;
  bool size_given = false;  // --window-size: exactly this; else the last size, fitted to the screen
};

// Opens the window and runs until it is closed. Returns the exit code: 0, or
// 1 if the window could not be opened, the run failed under --quit-after-run,
// or the screenshot could not be written (the reason goes to err).
int run_gui(const GuiRequest& request, std::ostream& err);

}  // namespace asyncscope::app
