// The asyncscope command line: list the demos, run one headless and print its
// result table, write its trace and results, and (until the GUI) describe a
// saved trace. Returns the process exit code: 0 success, 1 a run failed,
// 2 bad input (one line on `err` saying what is wrong and what to do).
// Threading: main thread only.
#pragma once

#include <iosfwd>

namespace asyncscope::app {

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace asyncscope::app
