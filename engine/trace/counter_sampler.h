// CounterSampler: a thread that reads a fixed set of counters (RSS, live and
// pooled bytes, queue depth, running ops, ...) at a fixed rate (default 1 kHz)
// and appends each row to its Recorder's counter log.
// Threading: construct, start() and stop() from one thread; the counter read
// functions run on the sampler thread and must be safe to call from it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "engine/trace/recorder.h"

namespace asyncscope::trace {

struct Counter {
  std::string name;  // its column name; known counters are in counters.h
  std::function<int64_t()> read;
};

// The process RSS, as a Counter (its own RssReader, kept open).
Counter rss_counter();

class CounterSampler {
 public:
  // At most kMaxCounters counters. Sets the recorder's counter names.
  CounterSampler(std::shared_ptr<Recorder> recorder, std::vector<Counter> counters,
                 int rate_hz = 1000);
  ~CounterSampler();  // stops
  CounterSampler(const CounterSampler&) = delete;
  CounterSampler& operator=(const CounterSampler&) = delete;

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
