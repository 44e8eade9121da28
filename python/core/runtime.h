// The runtime behind the Python package: which context a Python op runs in,
// and the process's own run when no host gave one.
//
// Under a host (`asyncscope script`, the app) the script's thread has the
// run's context installed as its current one, and Python ops use it; so do
// the threads the script starts (HostedRun). In a
// plain `python3` process there is no host: the first op starts the
// process's default run (a demos::RunEnv, so it has its own allocators, a
// traced engine and the counter sampler, exactly as a demo has), and ops
// from any thread use it. configure() sets its options before that. Like a
// script's run, it also has a stream for cuda:0 when CUDA can be used here.
//
// Threading: the Python thread that holds the GIL (every entry point here is
// called from Python).
#pragma once

#include <memory>
#include <string>

#include "engine/demos/program.h"
#include "engine/tensor/context.h"
#include "engine/trace_record/recorder.h"

namespace asyncscope::python {

// While it lives, a host's run is the run of every Python thread that has
// no context of its own: the threads a script starts. One at a time; made
// and destroyed with the GIL held (python/embed's ScriptProgram).
class HostedRun {
 public:
  explicit HostedRun(ContextPtr context);
  ~HostedRun();
  HostedRun(const HostedRun&) = delete;
  HostedRun& operator=(const HostedRun&) = delete;
};

// The context the calling thread's Python ops use: its own, the host's run
// (HostedRun), or the default run (started if needed).
const ContextPtr& context();
// Options of the default run; std::logic_error once it has started.
void configure(const demos::ContextRequest& request);
// Whether a host's run (not the default run) is the calling thread's.
bool hosted();
// The recorder of the run the calling thread is in.
std::shared_ptr<trace::Recorder> recorder();
// Writes that run's trace (Chrome trace JSON) to `path`.
void export_trace(const std::string& path);
// Writes the part of that run between from_ns and to_ns since its start
// (negative: its start / its end) to `path`: a notebook cell's picture. The
// run's model is kept between calls and brought up to date with what was
// recorded since (trace::TraceReader), and the window is cut from it by
// search, so a call costs the window's events, not the run's.
void export_window(const std::string& path, int64_t from_ns, int64_t to_ns);
// The interpreter is exiting (plain python3: shutdown() began) and the
// calling thread is not the one that exits: a daemon thread, which Python
// would freeze at finalization. It must not push or take the GIL again.
// Threading: any thread; no GIL needed.
bool exiting_elsewhere() noexcept;
// What such a thread does instead: blocks for good, the GIL released first
// when it holds it, as Python's own daemon threads are frozen at
// finalization; the process exits around it.
[[noreturn]] void park_for_exit() noexcept;

// In a process forked from one that ran asyncscope (os.fork,
// multiprocessing's fork start method) the engine's worker threads did not
// come along, so nothing pushed there could ever run: throws
// std::runtime_error saying so (and what to do) instead of a wait that never
// ends. A relaxed load of a flag set by a pthread_atfork handler.
// Threading: any thread.
void refuse_in_fork();

// At interpreter exit: finish the default run (waiting for its work), and
// write its trace to $ASYNCSCOPE_TRACE if that is set; then send viewers
// attached live what is left (for up to two seconds) and stop publishing.
// From its first call on, other threads that push or return from a wait
// park (park_for_exit): a daemon thread that pushes in a loop or waits in
// item() cannot hold the exit up or abort it. In a forked child it does
// nothing (the run is the parent's). `script`: the program's main file, if
// any: $ASYNCSCOPE_TRACE naming it (or any file it reads as its script) is
// refused with one line on stderr, as the CLI refuses an output over an
// input, and so is a path that cannot be written. Idempotent.
void shutdown(const std::string& script = "");

// Publishes the calling thread's run live (engine/trace/live.h: viewers of
// this user attach with the app's File > Attach to process or `asyncscope
// attach PID`), as `title`. Starts the default run if it has not started.
// Returns the socket's path; the same path when it already publishes.
// Throws trace::LiveError with the reason.
std::string serve(const std::string& title);
// ASYNCSCOPE_SERVE: publishes the default run when it starts (so that
// configure() can still come first), or now if it has. A failure is written
// to stderr as one line and the program goes on.
void serve_when_started(const std::string& title);
// The socket this process publishes on, or "".
std::string serving();
// Viewers following it now (0 when not publishing).
size_t serving_viewers();

}  // namespace asyncscope::python
