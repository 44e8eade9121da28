// The app's modal dialogs: a prompt for a file path (open a trace, export
// one) and the About box. A path prompt carries out what it was opened for
// through the callback it was given, and stays open showing the reason when
// that fails, so the user can fix the path.
// Threading: UI thread only.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "app/gui/window.h"
#include "engine/trace/live.h"

namespace asyncscope::app {

struct PathPrompt {
  std::string title;   // "Open trace"
  std::string prompt;  // "Trace file (written by asyncscope) to open:"
  std::string button;  // "Open"
  std::string path;    // the suggested path
  // Carries out the request: "" when done (the dialog closes), else why not.
  std::function<std::string(const std::string& path)> accept;
};

class Dialogs {
 public:
  void ask_path(PathPrompt prompt);
  void show_about();
  // Lists the programs of this user that publish their trace live
  // (trace::list_publishers), refreshed on demand; `accept` attaches to the
  // one picked: "" when done (the dialog closes), else why not.
  void ask_attach(std::function<std::string(int pid)> accept);
  // A dialog is up: the app's keyboard shortcuts wait.
  bool is_open() const noexcept { return kind_ != Kind::none; }
  // Draws the dialog that is up, if any. `presses`: this frame's key presses
  // (Enter confirms and Escape cancels even when a tap falls between frames).
  void draw(float scale, std::span<const KeyPress> presses);

 private:
  void draw_path_prompt(std::span<const KeyPress> presses);
  static void draw_about();
  void draw_attach(std::span<const KeyPress> presses);
  void refresh_publishers();
  void close();

  enum class Kind { none, path, about, attach };
  Kind kind_ = Kind::none;
  PathPrompt prompt_;
  std::function<std::string(int pid)> attach_;
  std::vector<trace::Publisher> publishers_;
  int picked_ = -1;  // index into publishers_
  char path_[1024] = {};
  std::string error_;
  bool close_ = false;  // set inside the popup: closes it before its end
};

}  // namespace asyncscope::app
