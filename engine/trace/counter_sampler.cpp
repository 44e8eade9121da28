#include "engine/trace/counter_sampler.h"

#include <time.h>

#include <chrono>
#include <cmath>
#include <deque>
#include <optional>
#include <stdexcept>
#include <system_error>

#include "engine/trace/counters.h"
#include "engine/trace/rss.h"

namespace asyncscope::trace {

Counter rss_counter() {
  auto reader = std::make_shared<RssReader>();
  return Counter{kRssCounter, [reader] { return reader->read(); }};
}

namespace {

// A thread's CPU clock against the steady clock, over a sliding window.
class ThreadCpuShare {
 public:
  ThreadCpuShare(clockid_t clock, int64_t window_ns) : clock_(clock), window_ns_(window_ns) {
    if (const auto first = reading()) readings_.push_back(*first);
  }

  int64_t read() {
    const auto now = reading();
    if (!now) {  // the thread has ended: it uses no CPU any more
      readings_.clear();
      return 0;
    }
    readings_.push_back(*now);
    // Keep the newest reading at least a window old as the front.
    while (readings_.size() > 2 && now->wall - readings_[1].wall >= window_ns_) readings_.pop_front();
    const Reading& then = readings_.front();
    if (now->wall <= then.wall) return 0;
    return std::llround(1000.0 * static_cast<double>(now->cpu - then.cpu) / static_cast<double>(now->wall - then.wall));
  }

 private:
  struct Reading {
    int64_t wall = 0;
    int64_t cpu = 0;
  };

  static int64_t ns(const timespec& t) noexcept { return t.tv_sec * int64_t{1'000'000'000} + t.tv_nsec; }
  static int64_t wall_ns() noexcept {
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return ns(t);
  }

  // The CPU clock between two steady-clock reads, dated at their midpoint.
  // A sampler preempted between the reads would misdate it by up to the
  // preemption (a 5 ms stall in a 10 ms window: a share off by half), so a
  // pair further apart than 20 us is read again, up to 4 times, and the
  // closest pair kept. Empty once the thread's clock is gone.
  std::optional<Reading> reading() const {
    std::optional<Reading> best;
    int64_t best_gap = 0;
    for (int attempt = 0; attempt < 4; ++attempt) {
      const int64_t before = wall_ns();
      timespec cpu{};
      if (clock_gettime(clock_, &cpu) != 0) return std::nullopt;
      const int64_t after = wall_ns();
      if (!best || after - before < best_gap) {
        best = Reading{before + (after - before) / 2, ns(cpu)};
        best_gap = after - before;
      }
      if (best_gap <= 20'000) break;
    }
    return best;
  }

  const clockid_t clock_;
  const int64_t window_ns_;
  std::deque<Reading> readings_;  // oldest first
};

}  // namespace

Counter thread_cpu_counter(std::string name, pthread_t thread, int64_t window_ns) {
  if (window_ns <= 0) throw std::invalid_argument("thread_cpu_counter: the window must be positive");
  clockid_t clock{};
  if (const int error = pthread_getcpuclockid(thread, &clock); error != 0) {
    throw std::system_error(error, std::generic_category(), "thread_cpu_counter: no CPU clock for the thread");
  }
  auto share = std::make_shared<ThreadCpuShare>(clock, window_ns);
  return Counter{std::move(name), [share] { return share->read(); }};
}

CounterSampler::CounterSampler(std::shared_ptr<Recorder> recorder, std::vector<Counter> counters,
                               int rate_hz)
    : recorder_(std::move(recorder)), counters_(std::move(counters)), rate_hz_(rate_hz) {
  if (!recorder_) throw std::invalid_argument("CounterSampler: recorder is null");
  if (counters_.size() > static_cast<size_t>(kMaxCounters)) {
    throw std::invalid_argument("CounterSampler: at most " + std::to_string(kMaxCounters) + " counters");
  }
  if (rate_hz_ <= 0) throw std::invalid_argument("CounterSampler: rate must be positive");
  std::vector<std::string> names;
  for (const Counter& c : counters_) names.push_back(c.name);
  recorder_->set_counter_names(std::move(names));
}

CounterSampler::~CounterSampler() { stop(); }

void CounterSampler::start() {
  if (thread_.joinable()) return;
  stop_.store(false, std::memory_order_relaxed);
  thread_ = std::thread([this] { loop(); });
}

void CounterSampler::stop() {
  if (!thread_.joinable()) return;
  stop_.store(true, std::memory_order_relaxed);
  thread_.join();
  sample_once();
}

void CounterSampler::sample_once() {
  CounterSample row;
  for (size_t i = 0; i < counters_.size(); ++i) row.values[i] = counters_[i].read();
  row.t = now_ns();
  recorder_->counter_log().append(row);
}

void CounterSampler::loop() {
  set_thread_name("counters");
  const auto period = std::chrono::nanoseconds(1'000'000'000 / rate_hz_);
  auto next = std::chrono::steady_clock::now();
  while (!stop_.load(std::memory_order_relaxed)) {
    sample_once();
    next += period;
    const auto now = std::chrono::steady_clock::now();
    // After a stall (loaded machine), resume the grid instead of bursting to catch up.
    if (next < now) next = now;
    std::this_thread::sleep_until(next);
  }
}

}  // namespace asyncscope::trace
