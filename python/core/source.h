// Source attribution for Python frontends: before a call into the core
// pushes or waits, note_source() records which line of the user's script is
// running (the innermost frame outside the asyncscope package), so the trace
// can give every enqueue and wait its file and line (trace::SourceEvent).
//
// One source event per execution of a line: a second call from the same
// line, later in the same execution (`z = (x + 1) * 2`), adds nothing; the
// same line run again (a loop, a function called again) adds one. Each code
// object's file and each (code, instruction) -> line lookup is cached, so a
// push from a line already seen costs a few frame accessors and two hash
// lookups (measured in bench/python, docs/PERFORMANCE.md).
//
// Threading: Python threads holding the GIL. The state of "the line last
// recorded" is per thread, as the trace's frontend lanes are.
#pragma once

#include <string>

#include "engine/tensor/context.h"

namespace asyncscope::python {

// Records the calling Python thread's current script line in ctx's trace, if
// it is traced and the line is a new execution. Never throws.
void note_source(const Context& ctx);

// The calling thread left the script (it ended, or the process is exiting):
// what it pushes or waits for afterwards has no line. Never throws.
void leave_source(const Context& ctx);

// The package's own directory (its frames are not the user's); set once by
// asyncscope/__init__.py. Frames whose file starts with it are skipped.
void set_package_dir(const std::string& dir, const std::string& absolute_dir);

// Whether attribution is on: by default unless ASYNCSCOPE_SOURCE=0; the
// benchmarks switch it to measure what it costs per push.
bool source_attribution_enabled();
void set_source_attribution(bool on);

}  // namespace asyncscope::python
