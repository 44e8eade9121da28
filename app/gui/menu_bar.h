// The menu bar: File (open, export, screenshot, quit), Run, View (fit,
// follow live, which run to show and which to compare with) and Help. Items
// show their shortcut from the one key table (actions.h).
// Threading: UI thread only.
#pragma once

#include <optional>

#include "app/gui/actions.h"
#include "app/gui/run_list.h"

namespace asyncscope::app {

// Draws the menu bar of the current window. Picking the run to show or to
// compare with changes `runs` at once; any other item is returned for the
// app to carry out.
std::optional<Action> draw_menu_bar(RunList& runs, bool running);

}  // namespace asyncscope::app
