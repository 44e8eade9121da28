// The menu bar: File (open, export, screenshot, quit), Run (run or stop,
// and how many GPUs to simulate), View (fit, follow live, which run to show
// and which to compare with) and Help. Items show their shortcut from the
// one key table (actions.h).
// Threading: UI thread only.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/gui/actions.h"
#include "app/gui/run_list.h"

namespace asyncscope::app {

// Draws the menu bar of the current window. Picking the run to show or to
// compare with changes `runs` at once; any other item is returned for the
// app to carry out. A number of simulated GPUs other than the process's
// (engine/core/device.h: fixed for a process once read) is returned in
// `simulated_gpus`, for the app to restart with.
std::optional<Action> draw_menu_bar(RunList& runs, bool running, std::optional<int>& simulated_gpus);

// The command line to restart the app with `n` simulated GPUs: `args` (the
// process's own, program name first) with any --simulated-gpus option
// replaced by `--simulated-gpus N`, placed before a subcommand (view, ...).
std::vector<std::string> with_simulated_gpus(const std::vector<std::string>& args, int n);

}  // namespace asyncscope::app
