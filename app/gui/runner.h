// ProgramRunner: runs one program on its own frontend thread, so the GUI
// thread never blocks on the engine. The GUI reads the run's trace as it
// grows (through the recorder, which never blocks its writers), the lines the
// program prints, and polls the state. Each run also records the app's
// render CPU (trace::kRenderCpuCounter): the CPU share of the thread that
// started it (the UI thread, which draws the frames) and of the graphics
// driver's threads, so the app's own load shows in the trace. A program
// that writes to the process's descriptors itself (a script) has them read
// into its console while it runs (OutputCapture).
// Threading: every member from the UI thread; the program runs on the runner's thread.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "engine/demos/program.h"
#include "engine/demos/run_env.h"
#include "engine/trace_record/recorder.h"

namespace asyncscope::app {

// What the app keeps per recorded op while it shows a run, reserved with the
// trace (trace::Recorder::set_read_reserve) so that it counts against the
// run's memory budget: the reader's model (trace::kReadReserveBytesPerOp)
// and, on top, the insight's lane states and the timeline's tables. Measured
// as the app's peak RSS less the command line's for the same run, over the
// ops recorded (sync-vs-async, 100,000 and 300,000 iterations: 260 and
// 294 B per op beyond the command line's), rounded up.
inline constexpr size_t kAppReadReserveBytesPerOp = trace::kReadReserveBytesPerOp + 320;

class ProgramRunner {
 public:
  enum class State { idle, running, finished, failed, cancelled };

  // `render_threads`: threads whose CPU counts as rendering besides the one
  // that starts a run (Window::driver_threads; kernel thread ids).
  explicit ProgramRunner(std::vector<pid_t> render_threads = {}) : render_threads_(std::move(render_threads)) {}
  ~ProgramRunner();  // stops and joins a run still going
  ProgramRunner(const ProgramRunner&) = delete;
  ProgramRunner& operator=(const ProgramRunner&) = delete;

  // Starts a run (there must be none running). The recorder is created here
  // and is available at once, so the GUI can draw from the first event. The
  // CPU share of the calling thread and the render threads is one of the
  // run's counters.
  void start(const demos::Program& program, const demos::ParamValues& values);
  // Asks the run to stop: pending ops are dropped, running ones finish, and
  // the program's next push or wait throws, so it ends promptly.
  void stop();

  State state() const noexcept { return state_.load(std::memory_order_acquire); }
  bool busy() const noexcept { return state() == State::running; }
  const std::shared_ptr<trace::Recorder>& recorder() const noexcept { return recorder_; }
  double progress() const noexcept { return progress_.load(std::memory_order_relaxed); }
  std::string progress_text() const;
  // The console lines printed since line `from` (0: all of this run's).
  // The last one may be open (text written without its newline yet, a
  // prompt): then *last_open is true, and the next call should start from
  // that line again, which may have grown.
  std::vector<std::string> console_since(size_t from, bool* last_open = nullptr) const;
  // Once finished: the results; once failed: the error.
  std::optional<demos::Results> results() const;
  std::string error() const;
  // Joins the thread of a run that ended (call before reading a finished run's trace for good).
  void join();
  // Waits up to `limit` for a run to end (after stop(), say); whether none is running.
  bool wait_for_end(std::chrono::milliseconds limit) const;

 private:
  // Appends program output to the console: whole lines, and an open last one.
  void add_console_text(std::string_view text);

  const std::vector<pid_t> render_threads_;
  std::thread thread_;
  std::shared_ptr<trace::Recorder> recorder_;
  std::unique_ptr<demos::RunControl> control_;
  std::atomic<State> state_{State::idle};
  std::atomic<double> progress_{0};
  mutable std::mutex mutex_;  // guards the strings and results below
  std::string progress_text_;
  std::vector<std::string> console_;
  bool console_open_ = false;  // the last line of console_ has no newline yet
  std::optional<demos::Results> results_;
  std::string error_;
};

}  // namespace asyncscope::app
