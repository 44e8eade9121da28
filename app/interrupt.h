// SIGINT and SIGTERM while a run or an export is under way: instead of dying
// with temporary files left behind, the process stops the run, lets the
// writer remove its temporaries, and exits 128 + the signal (130, 143).
//
// The handler only records the signal and writes a byte to a pipe (both
// async-signal-safe); a watcher thread reads the pipe and does the rest
// (stopping a run takes locks, which a handler must not). The main thread,
// whose blocking write to a stream nobody reads would never return, is
// nudged with the signal again until the scope ends: without SA_RESTART,
// each nudge makes that write fail with EINTR.
//
// A signal that was ignored when the scope began (a background job of a
// shell without job control) stays ignored when the terminal sends it
// (Ctrl+C), as the shell meant; sent by a process (kill -INT PID, timeout
// -s INT), it stops the run as it would otherwise.
//
// Threading: construct and destroy on the main thread, one scope at a time;
// signal_number() from any thread.
#pragma once

#include <functional>
#include <thread>

namespace asyncscope::app {

class InterruptScope {
 public:
  // Installs the handlers; `on_signal` runs once, on the watcher thread, at
  // the first signal (e.g. RunControl::stop). Never throws: should the pipe
  // not be created, signals keep their usual effect.
  explicit InterruptScope(std::function<void()> on_signal = {});
  // Restores the previous handlers. A signal that arrived stays recorded.
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

  // The signal that arrived during this process's scopes (SIGINT, SIGTERM), or 0.
  static int signal_number() noexcept;
  // How many SIGINT and SIGTERM arrived in this process's scopes, from
  // outside (a second Ctrl+C after the first, say).
  static unsigned signals_received() noexcept;
  // "SIGINT", "SIGTERM".
  static const char* signal_name(int signal) noexcept;

 private:
  void watch();

  std::function<void()> on_signal_;
  std::thread watcher_;
};

}  // namespace asyncscope::app
