// `asyncscope profile SCRIPT [ARGS]`: a Python program run by the build's
// python3 under the real PyTorch's profiler (python/asyncscope/profile_script.py),
// then its trace opened in the window, described (--print) or answered as
// JSON (--json), and kept where --trace says.
//
// The runner writes into a folder private to this run (mkdtemp, mode 0700,
// removed at the end), never to a predictable name; --trace gets a copy of
// the trace once the program ended, committed with --json as one set, so an
// old file is never described as this run's and the program (or a process
// it forked) never writes the user's file. The program's exit status is
// passed through and said; the runner's own outcome (no PyTorch, what ran)
// travels in a file of the folder, apart from it. SIGINT or SIGTERM to
// asyncscope is forwarded to the program as Ctrl+C, which writes the trace
// of what ran; the program and every process it started are gone within 3 s
// (killed when they linger), what ran is kept, and the exit is 128 + the signal.
//
// Threading: main thread only (the CLI's).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "app/cli.h"

namespace asyncscope::app {

struct ProfileRequest {
  std::vector<std::string> args;       // the program, then its arguments
  const std::string* trace = nullptr;  // --trace: keep the trace here
  const std::string* json = nullptr;   // --json: its answers here
  bool print = false;                  // --print: describe it on the terminal
  GuiRequest gui;                      // the window, when neither --print nor --json
};

// Returns the exit code: the program's own status (1 when it raised), 2
// with one line for bad input (no such script, an output that cannot be
// written or is the script, no PyTorch), 1 when the program left no trace,
// 128 + the signal when interrupted.
int profile_command(const ProfileRequest& request, std::ostream& out, std::ostream& err,
                    const GuiLauncher& launch_gui);

}  // namespace asyncscope::app
