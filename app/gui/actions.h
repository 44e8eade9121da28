// What the user can ask the app to do from the menu, the buttons and the
// keyboard, and the one table of keyboard shortcuts: the menu shows the keys
// from the same table the key handling reads, so they cannot disagree.
// Threading: UI thread only.
#pragma once

#include <optional>

#include "app/gui/window.h"

namespace asyncscope::app {

enum class Action {
  run,            // start a run of the selected program
  stop,           // stop the live run
  toggle_run,     // run, or stop the live run
  fit,            // bring the whole run into view
  toggle_follow,  // follow the live edge, or not
  export_trace,   // ask where to write the current run's trace
  open_trace,     // ask which trace file to open
  open_script,    // ask which Python script to open
  attach,         // pick a running program that publishes its trace, and follow it live
  screenshot,     // save a PNG of the window
  about,          // show the About box
  quit,
};

// The action bound to a key press, if any.
std::optional<Action> action_for_key(const KeyPress& key);
// The key of an action as the menu shows it ("Ctrl+S", "Space"), or nullptr.
const char* shortcut_label(Action action);

}  // namespace asyncscope::app
