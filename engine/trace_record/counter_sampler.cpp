#include "engine/trace_record/counter_sampler.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "engine/trace_record/counters.h"
#include "engine/trace_record/rss.h"

namespace asyncscope::trace {

std::optional<int64_t> read_cpu_clock_ns(clockid_t clock) noexcept {
  timespec t{};
  if (clock_gettime(clock, &t) != 0) return std::nullopt;
  return t.tv_sec * int64_t{1'000'000'000} + t.tv_nsec;
}

Counter rss_counter() {
  auto reader = std::make_shared<RssReader>();
  return Counter{kRssCounter, [reader] { return reader->read(); }};
}

namespace {

// Threads' CPU clocks, summed, against the steady clock over a sliding window.
class ThreadsCpuShare {
 public:
  ThreadsCpuShare(std::vector<clockid_t> clocks, int64_t window_ns)
      : clocks_(std::move(clocks)), cpu_(clocks_.size(), 0), window_ns_(window_ns) {
    readings_.push_back(reading());
  }

  int64_t read() {
    const Reading now = reading();
    readings_.push_back(now);
    // Keep the newest reading at least a window old as the front.
    while (readings_.size() > 2 && now.mid() - readings_[1].mid() >= window_ns_) readings_.pop_front();
    const Reading& then = readings_.front();
    // Over the widest span the two readings may cover (from the earlier one's
    // first steady-clock read to this one's last): each thread's CPU time
    // grew by no more than that, so the share never exceeds the threads'
    // count of cores, however late a preempted read was dated.
    const int64_t span = now.after - then.before;
    if (span <= 0) return 0;
    // Capped at the threads' count of cores all the same: a thread that had
    // not run yet reads 0 and then, in its first microseconds, more CPU time
    // than wall time has passed (on a loaded machine, several times the span:
    // a share of several cores for one thread).
    const int64_t most = 1000 * static_cast<int64_t>(clocks_.size());
    const double cpu = static_cast<double>(now.cpu - then.cpu);
    const auto share = static_cast<int64_t>(std::llround(1000.0 * cpu / static_cast<double>(span)));
    return std::min(most, share);
  }

 private:
  struct Reading {
    int64_t before = 0;  // steady clock just before and just after the CPU clocks were read
    int64_t after = 0;
    int64_t cpu = 0;     // the threads' CPU time, summed

    int64_t mid() const noexcept { return before + (after - before) / 2; }
  };

  static int64_t ns(const timespec& t) noexcept { return t.tv_sec * int64_t{1'000'000'000} + t.tv_nsec; }
  static int64_t wall_ns() noexcept {
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return ns(t);
  }

  // The CPU clocks between two steady-clock reads. A sampler preempted
  // between the reads cannot tell when within the pair it read them (a 5 ms
  // stall in a 10 ms window: a share off by half), so a pair further apart
  // than 20 us is read again, up to 4 times, and the closest pair kept. A
  // thread that ended keeps the CPU time it had.
  Reading reading() {
    Reading best;
    int64_t best_gap = -1;
    std::vector<int64_t> cpu(clocks_.size());
    for (int attempt = 0; attempt < 4 && (best_gap < 0 || best_gap > 20'000); ++attempt) {
      const int64_t before = wall_ns();
      for (size_t i = 0; i < clocks_.size(); ++i) cpu[i] = read_cpu_clock_ns(clocks_[i]).value_or(cpu_[i]);
      const int64_t after = wall_ns();
      if (best_gap < 0 || after - before < best_gap) {
        best_gap = after - before;
        best.before = before;
        best.after = after;
        cpu_ = cpu;
      }
    }
    for (int64_t c : cpu_) best.cpu += c;
    return best;
  }

  const std::vector<clockid_t> clocks_;
  std::vector<int64_t> cpu_;  // each thread's CPU time at the last reading
  const int64_t window_ns_;
  std::deque<Reading> readings_;  // oldest first
};

}  // namespace

clockid_t thread_cpu_clock(pthread_t thread) {
  clockid_t clock{};
  if (const int error = pthread_getcpuclockid(thread, &clock); error != 0) {
    throw std::system_error(error, std::generic_category(), "no CPU clock for the thread");
  }
  return clock;
}

// Linux's encoding of a thread's CPU clock (include/linux/posix-timers.h:
// the id complemented and shifted, CPUCLOCK_PERTHREAD_MASK | CPUCLOCK_SCHED),
// as glibc's pthread_getcpuclockid makes it from the thread's id.
clockid_t thread_cpu_clock_of(pid_t tid) noexcept {
  constexpr clockid_t kPerThread = 4, kSched = 2;
  return static_cast<clockid_t>(~static_cast<unsigned>(tid) << 3) | kPerThread | kSched;
}

Counter threads_cpu_counter(std::string name, std::vector<clockid_t> clocks, int64_t window_ns) {
  if (window_ns <= 0) throw std::invalid_argument("threads_cpu_counter: the window must be positive");
  auto share = std::make_shared<ThreadsCpuShare>(std::move(clocks), window_ns);
  return Counter{std::move(name), [share] { return share->read(); }};
}

Counter thread_cpu_counter(std::string name, pthread_t thread, int64_t window_ns) {
  return threads_cpu_counter(std::move(name), {thread_cpu_clock(thread)}, window_ns);
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
  sample_once();
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
  // start() took the first sample; stop() takes the last.
  auto next = std::chrono::steady_clock::now() + period;
  for (;;) {
    std::this_thread::sleep_until(next);
    if (stop_.load(std::memory_order_relaxed)) break;
    sample_once();
    next += period;
    const auto now = std::chrono::steady_clock::now();
    // After a stall (loaded machine), resume the grid instead of bursting to catch up.
    if (next < now) next = now;
  }
}

}  // namespace asyncscope::trace
