#include "app/gui/runner.h"

#include <stdexcept>
#include <thread>

#include "app/gui/output_capture.h"
#include "engine/core/errors.h"
#include "engine/trace_record/counter_sampler.h"
#include "engine/trace_record/counters.h"

namespace asyncscope::app {

ProgramRunner::~ProgramRunner() {
  stop();
  join();
}

void ProgramRunner::stop() {
  if (control_) control_->stop();
}

void ProgramRunner::join() {
  if (thread_.joinable()) thread_.join();
}

bool ProgramRunner::wait_for_end(std::chrono::milliseconds limit) const {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (busy()) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

void ProgramRunner::start(const demos::Program& program, const demos::ParamValues& values) {
  if (busy()) throw std::logic_error("a run is already going on");
  join();
  recorder_ = std::make_shared<trace::Recorder>();
  recorder_->set_read_reserve(kAppReadReserveBytesPerOp);
  control_ = std::make_unique<demos::RunControl>();
  progress_.store(0);
  {
    std::lock_guard lock(mutex_);
    progress_text_ = "starting";
    console_.clear();
    console_open_ = false;
    results_.reset();
    error_.clear();
  }
  // Taken here, on the UI thread, whose CPU the counter reads with the render threads'.
  std::vector<clockid_t> clocks{trace::thread_cpu_clock(pthread_self())};
  for (pid_t tid : render_threads_) clocks.push_back(trace::thread_cpu_clock_of(tid));
  trace::Counter render_cpu = trace::threads_cpu_counter(trace::kRenderCpuCounter, std::move(clocks));
  state_.store(State::running, std::memory_order_release);
  thread_ = std::thread([this, &program, values, recorder = recorder_, control = control_.get(),
                         render_cpu = std::move(render_cpu)] {
    demos::RunHooks hooks;
    hooks.recorder = recorder;
    hooks.extra_counters.push_back(render_cpu);
    hooks.progress = [this](double fraction, const std::string& what) {
      progress_.store(fraction, std::memory_order_relaxed);
      std::lock_guard lock(mutex_);
      progress_text_ = what;
    };
    hooks.console_text = [this](std::string_view text, bool) { add_console_text(text); };
    State end = State::finished;
    try {
      // Bytes a script sends to the process's descriptors directly join its console.
      std::optional<OutputCapture> capture;
      if (program.writes_process_output()) {
        capture.emplace([this](std::string_view text, bool) { add_console_text(text); });
        hooks.process_output_captured = true;
      }
      demos::Results r = demos::run_program(program, values, hooks, *control);
      std::lock_guard lock(mutex_);
      results_ = std::move(r);
    } catch (const std::exception& e) {
      // A stopped run ends with StoppedError, or CancelledError from a wait
      // whose work was dropped: both mean "stopped" once a stop was asked.
      if (control->stop_requested()) {
        end = State::cancelled;
      } else {
        std::lock_guard lock(mutex_);
        error_ = e.what();
        end = State::failed;
      }
    }
    progress_.store(1.0);
    state_.store(end, std::memory_order_release);
  });
}

std::string ProgramRunner::progress_text() const {
  std::lock_guard lock(mutex_);
  return progress_text_;
}

void ProgramRunner::add_console_text(std::string_view text) {
  std::lock_guard lock(mutex_);
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    const std::string_view piece = text.substr(0, nl);
    if (console_open_) {
      console_.back().append(piece);
    } else {
      console_.emplace_back(piece);
    }
    console_open_ = nl == std::string_view::npos;
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
  }
}

std::vector<std::string> ProgramRunner::console_since(size_t from, bool* last_open) const {
  std::lock_guard lock(mutex_);
  if (last_open != nullptr) *last_open = console_open_;
  if (from >= console_.size()) return {};
  return std::vector<std::string>(console_.begin() + static_cast<std::ptrdiff_t>(from), console_.end());
}

std::optional<demos::Results> ProgramRunner::results() const {
  std::lock_guard lock(mutex_);
  return results_;
}

std::string ProgramRunner::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

}  // namespace asyncscope::app
