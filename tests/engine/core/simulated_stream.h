// SimulatedStream: a DeviceStream for testing the engine's GPU path without a
// GPU. A "device" thread runs the work submitted to the stream in order;
// begin_op()/end_op() enqueue markers that time each op's work on the device
// thread, the way CUDA events are recorded into a stream. The device can be
// held (a gate) so tests can see what the host does while the device is busy,
// and an op's work can fail the way a faulting kernel does (wait() throws).
// Threading: as DeviceStream; submit() from the stream worker (inside op
// functions); hold()/release() and the counters from any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "engine/core/device_stream.h"
#include "engine/trace_record/clock.h"

namespace asyncscope::testing {

class SimulatedStream final : public DeviceStream {
 public:
  SimulatedStream() : device_([this] { run_device(); }) {}
  ~SimulatedStream() override {
    release();
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    device_.join();
  }

  // Queues device work behind everything submitted before.
  void submit(std::function<void()> work) {
    {
      std::lock_guard lock(mutex_);
      queue_.push_back(std::move(work));
    }
    changed_.notify_all();
  }
  // Called from device work: the op being run fails (its wait() throws).
  void fail_current() { failed_current_ = true; }

  // While held, the device runs nothing.
  void hold() {
    std::lock_guard lock(mutex_);
    held_ = true;
  }
  void release() {
    {
      std::lock_guard lock(mutex_);
      held_ = false;
    }
    changed_.notify_all();
  }

  int begun() const noexcept { return begun_.load(); }
  int finished_on_device() const noexcept { return finished_.load(); }

  Token begin_op() override {
    const Token token = next_token_++;
    begun_.fetch_add(1);
    submit([this, token] {
      failed_current_ = false;
      start_ = trace::now_ns();
      (void)token;
    });
    return token;
  }
  void end_op(Token token) override {
    submit([this, token] {
      const Span span{start_, trace::now_ns()};
      {
        std::lock_guard lock(mutex_);
        done_[token] = Result{span, failed_current_};
      }
      finished_.fetch_add(1);
      changed_.notify_all();
    });
  }
  Span wait(Token token) override {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return done_.count(token) != 0; });
    const Result r = done_[token];
    done_.erase(token);
    if (r.failed) throw std::runtime_error("simulated device fault (illegal address)");
    return r.span;
  }
  void* native() noexcept override { return this; }

 private:
  struct Result {
    Span span;
    bool failed = false;
  };

  void run_device() {
    for (;;) {
      std::function<void()> work;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return stopping_ || (!held_ && !queue_.empty()); });
        if (queue_.empty() || held_) return;  // stopping
        work = std::move(queue_.front());
        queue_.pop_front();
      }
      work();
    }
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::function<void()>> queue_;
  std::map<Token, Result> done_;
  bool held_ = false;
  bool stopping_ = false;
  Token next_token_ = 1;  // stream worker only
  int64_t start_ = 0;     // device thread only
  bool failed_current_ = false;  // device thread only
  std::atomic<int> begun_{0};
  std::atomic<int> finished_{0};
  std::thread device_;  // last: starts after the members it uses exist
};

}  // namespace asyncscope::testing
