// The console pane: the lines the shown run's program printed, as plain
// monospace text, like a terminal. It keeps the newest line in view while
// the run prints, unless the user scrolled up to read; it counts the
// lines, and copies them (Copy: all; right-click: one line or all). It is
// the second tab of the bottom area, beside the results.
// Threading: UI thread only.
#pragma once

#include <imgui.h>

#include <cstddef>
#include <span>
#include <string>

#include "app/gui/run_list.h"

namespace asyncscope::app {

// Whether the console keeps its newest line in view: yes while the view sits
// at the bottom (new lines then scroll in), no once the user scrolls up, yes
// again when they scroll back down; a newly shown run starts at its newest
// line, as a terminal would.
class ConsoleFollow {
 public:
  // Once a frame, before drawing: the run shown (its number) and where the
  // view was scrolled last frame. `slack`: how near the bottom counts as at
  // it. Returns whether to scroll to the newest line this frame.
  bool update(int run_number, float scroll_y, float scroll_max_y, float slack);

 private:
  int run_number_ = -1;
};

// "1 line", "12 lines".
std::string line_count_text(size_t lines);
// The lines as one text, each ended by a newline: what Copy puts on the clipboard.
std::string join_lines(std::span<const std::string> lines);
// What the console says when there is nothing to show for `run` (nullptr:
// no run yet), or nullptr when it has lines.
const char* console_hint(const RunRecord* run);

// The console tab's title: "Console (N)", with an id that stays as N grows.
std::string console_tab_label(const RunRecord* run);
// Whether a run that just ended brings the console tab to the front: it
// printed but left no results to show (it failed, was stopped, or reports
// only by printing), so what it printed is the news. A run with results
// leaves the tab the user chose.
bool console_first_after(const RunRecord& ended);

class ConsolePanel {
 public:
  // Draws in the available region of the current window; `mono` is the font
  // for the lines (nullptr: the current font).
  void draw(const RunRecord* run, ImFont* mono);

 private:
  void draw_lines(const RunRecord& run, ImFont* mono);

  ConsoleFollow follow_;
  size_t context_line_ = 0;  // the line a right-click opened the menu on
};

}  // namespace asyncscope::app
