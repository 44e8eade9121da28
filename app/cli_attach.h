// `asyncscope attach`: follows a program that publishes its trace live
// (engine/trace/live.h): lists them, opens the app attached to one, or
// follows one headless for a while and writes or describes what arrived.
// Threading: main thread only (the CLI's).
#pragma once

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>

#include "app/cli.h"
#include "app/gui/gui.h"

namespace asyncscope::app {

struct AttachRequest {
  std::string pid;       // as given; "": the only program that publishes
  bool list = false;     // list the publishers and exit
  bool headless = false; // follow here (--seconds, --trace, --print) instead of opening the app
  double seconds = 0;    // headless: at most this long (0: until the program ends, or Ctrl+C)
  bool from_start = false;
  uint64_t max_ops = 0;  // headless: ops kept at most (0: kMaxAttachOps)  // everything since the program started (else from trace::kDefaultCatchUp before attaching)
  std::string trace;     // headless: write what arrived here
  bool print = false;    // headless: describe what arrived
  GuiRequest gui;        // the window's options (--screenshot, --quit-after-run, --tab)
};

// What a headless attach keeps at most unless told otherwise (--max-ops):
// beyond it, it stops following and says so, so that --seconds S is over
// within S + 5 s whatever the program's rate (writing and describing what
// arrived included: a Chrome trace is about 1.5 KB an op).
inline constexpr uint64_t kMaxAttachOps = 250'000;

// Returns the exit code: 0, 2 with one line on `err` for bad input (a PID
// that is not a number, --seconds not a finite number), a program that
// does not publish (or cannot be attached to), an output that cannot be
// written; 128 + the signal after Ctrl+C (what arrived is still written,
// unless the signal came during the write, which it then abandons).
int attach_command(AttachRequest request, std::ostream& out, std::ostream& err, const GuiLauncher& launch_gui);

}  // namespace asyncscope::app
