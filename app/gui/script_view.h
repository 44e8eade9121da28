// The script view: a Python script's source in an editor, with a left
// margin of per-line figures from the shown run (how often the line ran, the
// ops it pushed, its enqueue time and the time the frontend waited on it;
// lines that waited long are marked), Save / Revert with a modified marker,
// and Ctrl+S saving while the editor has the focus. Selecting a line (a click
// in the margin, or the text cursor on it) highlights that line's ops and
// waits on the timeline; select_line (a click on an op) brings a line into
// view. The app runs the editor's text, saved or not (ScriptLibrary::
// run_buffer), so the figures are always those of the lines as they ran;
// the view says when the text was edited since.
// Threading: UI thread only.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "app/gui/program_panel.h"
#include "app/gui/run_list.h"
#include "app/gui/window.h"
#include "engine/trace/source_lines.h"

namespace asyncscope::app {

// One line's margin: its figures as compact text and whether it waited long.
struct MarginLine {
  std::string text;            // "" for a line that neither pushed nor waited
  std::string short_text;      // the same in a narrow margin (margin_text's compact form)
  int64_t line_index = -1;     // into the model's source_lines, -1 if none
  double wait_share = 0;       // its wait time over the longest line's, 0..1
  bool long_wait = false;      // waited at least 1 ms and a quarter of the longest line's wait
};

// "100× 100 ops 0.2 ms | wait 3.1 ms": runs, ops and enqueue time, then the
// wait (left out when the line never waited). Compact, for a narrow
// margin: "100× wait 3.1 ms" for a line that waited, else "100× 0.2 ms"
// (the hover tooltip has the rest).
std::string margin_text(const trace::LineFigures& f, bool compact = false);
// The figures column's width for texts whose widest is `widest_full`
// (`widest_compact` in the compact form) in a view `view_w` wide: the full
// form when it fits in kFiguresShare of the view, else the compact form,
// clipped to that share. Sets `compact` to the form chosen.
inline constexpr float kFiguresShare = 0.2f;
float figures_width(float widest_full, float widest_compact, float view_w, bool& compact);
// The margin of a script of `num_lines` lines (1-based line i is entry i-1)
// from a run's per-line figures: the rows of `path` (or, when none has that
// exact path, of a file with the same name, e.g. a trace saved elsewhere).
std::vector<MarginLine> margin_lines(const std::vector<trace::LineFigures>& rows, const std::string& path,
                                     size_t num_lines);
// The number of lines of a text (a final line without a newline counts).
size_t count_lines(const std::string& text);

class ScriptView {
 public:
  // Loads the script at `path` into the editor; "" or why not (the editor
  // keeps what it had). Unsaved edits of the script shown before are kept
  // for the session and come back when it is loaded again.
  std::string load(const std::string& path);
  const std::string& path() const noexcept { return path_; }
  const std::string& text() const noexcept { return text_; }
  bool modified() const noexcept { return text_ != saved_; }
  // Writes the text to the file; "" or why not.
  std::string save();
  void revert() { text_ = saved_; }
  // Replaces the text (tests; the editor changes it through ImGui).
  void set_text(std::string text) { text_ = std::move(text); }
  // The text of the run about to start: the figures that follow are of it.
  void ran(const std::string& text) { ran_ = text; }

  // Selects 1-based `line` (0: none) and scrolls it into view next frame.
  void select_line(uint32_t line);
  // Selects the line of this script that pushed op `op_index` of `model`
  // (a click on an op in the timeline); false, selecting nothing, when the
  // op has no source line or came from another file.
  bool select_line_of_op(const trace::TraceModel& model, int64_t op_index);
  uint32_t selected_line() const noexcept { return selected_; }
  // The selected line's index into `run`'s source_lines, -1 when it has no figures there.
  int64_t selected_index(const RunRecord* run);
  // The margin for `run` (cached while its model does not grow).
  const std::vector<MarginLine>& margin(const RunRecord* run);

  // Draws in the available region. `run` is the shown run (figures when it
  // ran this script); `presses` this frame's keys (Ctrl+S while editing).
  // Returns a message for the status line (text "" for none): a save done or failed.
  StatusLine draw(const RunRecord* run, ImFont* mono, std::span<const KeyPress> presses);

 private:
  void draw_toolbar(StatusLine& message);
  void draw_source(const RunRecord* run, ImFont* mono, std::span<const KeyPress> presses, StatusLine& message);
  void save_into(StatusLine& message);

  std::string path_;
  std::string text_;
  std::string saved_;   // the file's text as last loaded or saved
  std::string ran_;     // the text of the last run started from this view
  std::map<std::string, std::string> edits_;  // unsaved text of scripts shown before, by path
  uint32_t selected_ = 0;
  bool scroll_to_selected_ = false;
  bool scroll_to_figures_ = false;  // a run's first figures came in: bring their first line into view
  bool had_figures_ = false;        // the margin's run had figures when last computed
  uint32_t cursor_line_ = 0;  // the editor's cursor line as last seen (1-based)

  // The margin cache: which run's model, at which size.
  std::vector<MarginLine> margin_;
  std::vector<trace::LineFigures> figures_;  // the rows margin_ was made from (for the hover tooltip)
  int margin_run_ = -1;
  size_t margin_points_ = 0;
  size_t margin_lines_ = 0;
  const trace::TraceModel* margin_model_ = nullptr;
};

}  // namespace asyncscope::app
