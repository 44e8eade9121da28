#include "app/gui/runner.h"

#include <stdexcept>

namespace asyncscope::app {

DemoRunner::~DemoRunner() {
  stop();
  join();
}

void DemoRunner::join() {
  if (thread_.joinable()) thread_.join();
}

void DemoRunner::start(const demos::Demo& demo, const demos::ParamValues& values) {
  if (busy()) throw std::logic_error("a run is already going on");
  join();
  recorder_ = std::make_shared<trace::Recorder>();
  stop_.store(false);
  progress_.store(0);
  {
    std::lock_guard lock(mutex_);
    progress_text_ = "starting";
    results_.reset();
    error_.clear();
  }
  state_.store(State::running, std::memory_order_release);
  thread_ = std::thread([this, &demo, values, recorder = recorder_] {
    demos::RunEnv env;
    env.recorder = recorder;
    env.stop = &stop_;
    env.progress = [this](double fraction, const std::string& what) {
      progress_.store(fraction, std::memory_order_relaxed);
      std::lock_guard lock(mutex_);
      progress_text_ = what;
    };
    State end = State::finished;
    try {
      demos::Results r = demo.run(values, env);
      std::lock_guard lock(mutex_);
      results_ = std::move(r);
    } catch (const demos::DemoCancelled&) {
      end = State::cancelled;
    } catch (const std::exception& e) {
      std::lock_guard lock(mutex_);
      error_ = e.what();
      end = State::failed;
    }
    progress_.store(1.0);
    state_.store(end, std::memory_order_release);
  });
}

std::string DemoRunner::progress_text() const {
  std::lock_guard lock(mutex_);
  return progress_text_;
}

std::optional<demos::Results> DemoRunner::results() const {
  std::lock_guard lock(mutex_);
  return results_;
}

std::string DemoRunner::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

}  // namespace asyncscope::app
