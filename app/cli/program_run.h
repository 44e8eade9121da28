// Running a program headless (`run DEMO`, `script FILE`) with its outputs,
// and the checks a run passes before it starts (also the app's --run).
// Threading: main thread only (the CLI's).
#pragma once

#include <iosfwd>

#include "engine/base/output_file.h"
#include "engine/demos/program.h"

namespace asyncscope::app {

// What a run is refused for before it starts, by `run` and by the app's
// --run alike (there before a window opens): a device that is not there,
// arrays that would not fit the memory budget. Throws std::invalid_argument.
void check_runnable(const demos::Program& demo, const demos::ParamValues& values);

// Runs `demo` with `values` on this thread: what it prints to out and err,
// then (for a demo) its result table, its verdict and memory holders, the
// per-line table with `lines`; then commits `outputs` ("--json" the
// results, "--trace" the trace; either may be absent). SIGINT and SIGTERM
// stop the run and abandon the outputs (exit 130, 143). Returns the exit
// code: 0, the script's own sys.exit status, 1 for a run that failed.
// Throws std::invalid_argument for parameters the program cannot run.
int run_program(const demos::Program& demo, const demos::ParamValues& values, OutputSet& outputs, bool lines,
                std::ostream& out, std::ostream& err);

}  // namespace asyncscope::app
