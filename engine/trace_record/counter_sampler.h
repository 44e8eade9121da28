// CounterSampler: a thread that reads a fixed set of counters (RSS, live and
// pooled bytes, queue depth, running ops, ...) at a fixed rate (default 1 kHz)
// and appends each row to its Recorder's counter log.
// Threading: construct, start() and stop() from one thread; the counter read
// functions run on the sampler thread, and for the first and the last sample
// on the thread calling start() and stop(), never two at once.
#pragma once

#include <pthread.h>
#include <sys/types.h>
#include <time.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/trace_record/recorder.h"

namespace asyncscope::trace {

struct Counter {
  std::string name;  // its column name; known counters are in counters.h
  std::function<int64_t()> read;
};

// The process RSS, as a Counter (its own RssReader, kept open).
Counter rss_counter();

// A CPU clock's time in ns (clock_gettime), or nothing when it cannot be
// read (its thread ended).
std::optional<int64_t> read_cpu_clock_ns(clockid_t clock) noexcept;

// The window a thread's CPU share is taken over (threads_cpu_counter).
inline constexpr int64_t kThreadCpuWindowNs = 10'000'000;

// A thread's CPU clock (pthread_getcpuclockid; throws std::system_error if
// it has none), and the same by its kernel thread id, as /proc/self/task
// lists the threads (those a library started have no pthread_t here).
// The thread must be running when its clock is taken.
clockid_t thread_cpu_clock(pthread_t thread);
clockid_t thread_cpu_clock_of(pid_t tid) noexcept;

// The CPU time that `clocks` (threads' CPU clocks) used together over the
// last `window_ns` (10 ms), in thousandths of one core (CounterUnit::permille;
// two threads busy throughout read 2000), as a Counter named `name`. Each
// read takes the clocks and the steady clock, and differences them against
// the newest earlier reading at least a window old (the readings in between
// are kept, so the window slides with the samples); until a window has
// passed since this call, against the reading taken here. The share is the
// CPU time over the widest span the two readings may cover, capped at the
// threads' count of cores (a thread's first microseconds can read more); it
// may read low by the steady-clock gaps around the readings (under 20 us
// each unless every one of a reading's four tries was preempted, see
// counter_sampler.cpp). A thread
// that ended adds nothing more (its clock can no longer be read; were its
// id reused meanwhile, the new thread's time would count). The read
// function is for one thread at a time (the sampler's).
Counter threads_cpu_counter(std::string name, std::vector<clockid_t> clocks, int64_t window_ns = kThreadCpuWindowNs);
// One thread's share (threads_cpu_counter with its clock).
Counter thread_cpu_counter(std::string name, pthread_t thread, int64_t window_ns = kThreadCpuWindowNs);

class CounterSampler {
 public:
  // At most kMaxCounters counters. Sets the recorder's counter names.
  CounterSampler(std::shared_ptr<Recorder> recorder, std::vector<Counter> counters,
                 int rate_hz = 1000);
  ~CounterSampler();  // stops
  CounterSampler(const CounterSampler&) = delete;
  CounterSampler& operator=(const CounterSampler&) = delete;

  // Takes the first sample here, so a trace has it even if the run ends
  // before the sampler thread is first scheduled (a loaded machine).
  void start();
  // Takes one last sample, so the trace ends with the final values.
  void stop();
  bool running() const noexcept { return thread_.joinable(); }
  int rate_hz() const noexcept { return rate_hz_; }

  // Reads every counter now and appends the row (used by start/stop and tests).
  void sample_once();

 private:
  void loop();

  std::shared_ptr<Recorder> recorder_;
  std::vector<Counter> counters_;
  const int rate_hz_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace asyncscope::trace
