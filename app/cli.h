// The asyncscope command line: list the demos, run one (or a Python script)
// headless and print its result table, write its trace and results, describe
// a saved trace on the terminal (view --print), and otherwise open the
// desktop app. Returns the process exit code: 0 success, 1 a run failed,
// 2 bad input (one line on `err` saying what is wrong and what to do).
// Threading: main thread only.
#pragma once

#include <functional>
#include <iosfwd>

#include "app/gui/gui.h"

namespace asyncscope::app {

// Opens the desktop app for a request and returns its exit code.
using GuiLauncher = std::function<int(const GuiRequest&)>;

// With no subcommand (or `view FILE`), the window opens through launch_gui:
//   asyncscope [--demo NAME] [demo options] [--run] [--screenshot FILE.png] [--quit-after-run]
int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err, const GuiLauncher& launch_gui);

}  // namespace asyncscope::app
