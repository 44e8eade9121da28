// CounterSampler: argument checks, what a row holds, and the time order of the
// rows. No sampling rate is asserted: the machine may be loaded, so tests
// only wait (with a generous timeout) for "a few samples". And the thread
// CPU counter (the app's render CPU): a share that follows the thread's load.
#include "engine/trace_record/counter_sampler.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support/timeout.h"

namespace asyncscope::trace {
namespace {

using testing::eventually;
using testing::run_with_timeout;

Counter constant(std::string name, int64_t value) {
  return Counter{std::move(name), [value] { return value; }};
}

// A counter whose value the test sets.
Counter settable(std::string name, const std::shared_ptr<std::atomic<int64_t>>& value) {
  return Counter{std::move(name), [value] { return value->load(); }};
}

std::vector<CounterSample> samples(const Recorder& r) {
  std::vector<CounterSample> out;
  const ChunkedLog<CounterSample>& log = r.counter_log();
  const size_t n = log.size();
  for (size_t i = 0; i < n; ++i) out.push_back(log[i]);
  return out;
}

void expect_strictly_increasing_times(const std::vector<CounterSample>& rows) {
  for (size_t i = 1; i < rows.size(); ++i) {
    ASSERT_GT(rows[i].t, rows[i - 1].t) << "sample " << i << " is not after sample " << i - 1;
  }
}

TEST(CounterSampler, RejectsMoreThanMaxCounters) {
  auto recorder = std::make_shared<Recorder>();
  std::vector<Counter> counters;
  for (int i = 0; i < kMaxCounters; ++i) counters.push_back(constant("c" + std::to_string(i), i));
  EXPECT_NO_THROW(CounterSampler(recorder, counters));
  counters.push_back(constant("one too many", 0));
  EXPECT_THROW(CounterSampler(recorder, counters), std::invalid_argument);
}

TEST(CounterSampler, RejectsNonPositiveRates) {
  auto recorder = std::make_shared<Recorder>();
  for (int rate : {0, -1, -1000}) {
    EXPECT_THROW(CounterSampler(recorder, {constant("c", 1)}, rate), std::invalid_argument) << rate;
  }
  EXPECT_NO_THROW(CounterSampler(recorder, {constant("c", 1)}, 1));
}

TEST(CounterSampler, RejectsANullRecorder) {
  EXPECT_THROW(CounterSampler(nullptr, {constant("c", 1)}), std::invalid_argument);
}

TEST(CounterSampler, SetsTheRecordersCounterNames) {
  auto recorder = std::make_shared<Recorder>();
  CounterSampler sampler(recorder, {constant("alpha", 1), constant("beta", 2)}, 500);
  EXPECT_EQ(recorder->counter_names(), (std::vector<std::string>{"alpha", "beta"}));
  EXPECT_EQ(sampler.rate_hz(), 500);
  EXPECT_FALSE(sampler.running());
}

TEST(CounterSampler, SampleOnceRecordsTheReadValues) {
  auto recorder = std::make_shared<Recorder>();
  auto value = std::make_shared<std::atomic<int64_t>>(10);
  CounterSampler sampler(recorder, {constant("seven", 7), settable("x", value), constant("neg", -3)});
  const int64_t before = now_ns();
  sampler.sample_once();
  *value = 11;
  sampler.sample_once();
  const int64_t after = now_ns();
  const auto rows = samples(*recorder);
  ASSERT_EQ(rows.size(), 2u);
  for (const CounterSample& row : rows) {
    EXPECT_GE(row.t, before);
    EXPECT_LE(row.t, after);
    EXPECT_EQ(row.values[0], 7);
    EXPECT_EQ(row.values[2], -3);
    for (int i = 3; i < kMaxCounters; ++i) EXPECT_EQ(row.values[i], 0) << "unused slot " << i;
  }
  EXPECT_EQ(rows[0].values[1], 10);
  EXPECT_EQ(rows[1].values[1], 11);
  expect_strictly_increasing_times(rows);
}

TEST(CounterSampler, RunningSamplesAreMonotoneInTimeAndComeFromTheReadFunctions) {
  run_with_timeout([] {
    auto recorder = std::make_shared<Recorder>();
    auto calls = std::make_shared<std::atomic<int64_t>>(0);
    CounterSampler sampler(recorder,
                           {constant("const", 42), Counter{"calls", [calls] { return calls->fetch_add(1) + 1; }}});
    sampler.start();
    EXPECT_TRUE(sampler.running());
    ASSERT_TRUE(eventually([&] { return recorder->counter_log().size() >= 20; }));
    sampler.stop();
    EXPECT_FALSE(sampler.running());
    const auto rows = samples(*recorder);
    ASSERT_GE(rows.size(), 21u);  // at least the 20 waited for, and the one stop() adds
    expect_strictly_increasing_times(rows);
    for (size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(rows[i].values[0], 42);
      // One call of the read function per row, in row order.
      EXPECT_EQ(rows[i].values[1], static_cast<int64_t>(i + 1));
    }
    EXPECT_EQ(calls->load(), static_cast<int64_t>(rows.size()));
  });
}

TEST(CounterSampler, StopAppendsAFinalSampleWithTheLatestValue) {
  run_with_timeout([] {
    auto recorder = std::make_shared<Recorder>();
    auto value = std::make_shared<std::atomic<int64_t>>(1);
    CounterSampler sampler(recorder, {settable("v", value)});
    sampler.start();
    ASSERT_TRUE(eventually([&] { return recorder->counter_log().size() >= 3; }));
    *value = 123456;
    const size_t before_stop = recorder->counter_log().size();
    sampler.stop();
    const auto rows = samples(*recorder);
    ASSERT_GT(rows.size(), before_stop);
    EXPECT_EQ(rows.back().values[0], 123456);
    expect_strictly_increasing_times(rows);
  });
}

// A run shorter than the sampler thread's first time slice (a loaded
// machine) still has its first and its last sample: start() takes the first.
TEST(CounterSampler, StartTakesTheFirstSampleSoAStartAndAStopMakeTwo) {
  run_with_timeout([] {
    auto recorder = std::make_shared<Recorder>();
    auto readers = std::make_shared<std::vector<std::thread::id>>();
    auto value = std::make_shared<std::atomic<int64_t>>(7);
    CounterSampler sampler(recorder, {Counter{"v", [readers, value] {
                                                if (readers->size() < 1) readers->push_back(std::this_thread::get_id());
                                                return value->load();
                                              }}});
    sampler.start();
    ASSERT_GE(recorder->counter_log().size(), 1u) << "no sample when start() returned";
    EXPECT_EQ(readers->at(0), std::this_thread::get_id()) << "the first sample is read on the caller of start()";
    *value = 8;
    sampler.stop();
    const auto rows = samples(*recorder);
    ASSERT_GE(rows.size(), 2u);
    EXPECT_EQ(rows.front().values[0], 7);
    EXPECT_EQ(rows.back().values[0], 8);
    expect_strictly_increasing_times(rows);
  });
}

TEST(CounterSampler, StopIsIdempotentAndDoesNothingWhenNotStarted) {
  run_with_timeout([] {
    auto recorder = std::make_shared<Recorder>();
    CounterSampler sampler(recorder, {constant("c", 1)});
    sampler.stop();
    EXPECT_EQ(recorder->counter_log().size(), 0u);
    sampler.start();
    sampler.start();  // already running: no second thread
    ASSERT_TRUE(eventually([&] { return recorder->counter_log().size() >= 2; }));
    sampler.stop();
    const size_t after_stop = recorder->counter_log().size();
    sampler.stop();
    EXPECT_EQ(recorder->counter_log().size(), after_stop);
    expect_strictly_increasing_times(samples(*recorder));
  });
}

TEST(CounterSampler, CanBeRestartedAndStaysMonotone) {
  run_with_timeout([] {
    auto recorder = std::make_shared<Recorder>();
    CounterSampler sampler(recorder, {constant("c", 5)});
    for (int round = 1; round <= 3; ++round) {
      sampler.start();
      const size_t target = recorder->counter_log().size() + 3;
      ASSERT_TRUE(eventually([&] { return recorder->counter_log().size() >= target; }));
      sampler.stop();
    }
    const auto rows = samples(*recorder);
    EXPECT_GE(rows.size(), 12u);
    expect_strictly_increasing_times(rows);
  });
}

TEST(CounterSampler, DestructorStopsARunningSampler) {
  run_with_timeout([] {
    auto recorder = std::make_shared<Recorder>();
    auto value = std::make_shared<std::atomic<int64_t>>(0);
    {
      CounterSampler sampler(recorder, {settable("v", value)});
      sampler.start();
      ASSERT_TRUE(eventually([&] { return recorder->counter_log().size() >= 2; }));
      *value = 99;
    }
    // The sampler thread is gone: nothing is appended any more.
    const size_t size = recorder->counter_log().size();
    EXPECT_EQ(samples(*recorder).back().values[0], 99);
    EXPECT_EQ(recorder->counter_log().size(), size);
  });
}

TEST(CounterSampler, RssCounterYieldsPositiveValues) {
  run_with_timeout([] {
    Counter rss = rss_counter();
    EXPECT_EQ(rss.name, "rss_bytes");
    EXPECT_GT(rss.read(), 0);
    auto recorder = std::make_shared<Recorder>();
    CounterSampler sampler(recorder, {rss_counter()});
    sampler.start();
    ASSERT_TRUE(eventually([&] { return recorder->counter_log().size() >= 5; }));
    sampler.stop();
    const auto rows = samples(*recorder);
    for (const CounterSample& row : rows) EXPECT_GT(row.values[0], 0);
    expect_strictly_increasing_times(rows);
  });
}

// A thread the test makes spin or sleep, and whose CPU share it reads.
class Burner {
 public:
  enum Phase { sleep, spin, quit };
  Burner() : thread_([this] { loop(); }) {}
  ~Burner() {
    phase_ = quit;
    thread_.join();
  }
  void set(Phase p) { phase_ = p; }
  pthread_t handle() { return thread_.native_handle(); }

 private:
  void loop() {
    for (;;) {
      const Phase p = phase_.load();
      if (p == quit) return;
      if (p == sleep) std::this_thread::sleep_for(std::chrono::microseconds(200));
      // spin: just loop
    }
  }
  std::atomic<Phase> phase_{sleep};
  std::thread thread_;
};

// Reads `counter` every millisecond (as the 1 kHz sampler does) for at
// least `ms`, and on, up to 3 s, until `enough` holds for the values read
// after the first window (`settle_ms`); returns those values.
template <class Enough>
std::vector<int64_t> read_for(Counter& counter, int ms, Enough enough, int settle_ms = 15) {
  std::vector<int64_t> out;
  const auto start = std::chrono::steady_clock::now();
  for (auto now = start; now - start < std::chrono::seconds(3); now = std::chrono::steady_clock::now()) {
    if (now - start >= std::chrono::milliseconds(ms) && !out.empty() && enough(out)) break;
    const int64_t v = counter.read();
    if (now - start >= std::chrono::milliseconds(settle_ms)) out.push_back(v);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return out;
}

double mean(const std::vector<int64_t>& v) {
  double sum = 0;
  for (int64_t x : v) sum += static_cast<double>(x);
  return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

// The share of one core a thread used: high while it spins, low while it
// sleeps, and always a share. On a loaded machine a spinning thread gets
// only part of a core, at times none for a while: the spin is read for 60
// ms and on (up to 3 s) until a 10 ms window saw it above 20%; only ranges,
// the median and the order are asserted.
TEST(ThreadCpuCounter, RisesWhileTheThreadSpinsAndFallsWhileItSleeps) {
  run_with_timeout([] {
    Burner burner;
    Counter counter = thread_cpu_counter("cpu", burner.handle());
    EXPECT_EQ(counter.name, "cpu");
    const auto above_a_fifth = [](const std::vector<int64_t>& v) { return *std::max_element(v.begin(), v.end()) > 200; };
    burner.set(Burner::spin);
    const std::vector<int64_t> spinning = read_for(counter, 60, above_a_fifth);
    burner.set(Burner::sleep);
    const std::vector<int64_t> sleeping = read_for(counter, 60, [](const std::vector<int64_t>&) { return true; });
    ASSERT_FALSE(spinning.empty());
    ASSERT_FALSE(sleeping.empty());
    for (const auto* values : {&spinning, &sleeping}) {
      for (int64_t v : *values) {
        EXPECT_GE(v, 0);
        EXPECT_LE(v, 1050) << "more than one core (beyond the clocks' jitter)";
      }
    }
    EXPECT_TRUE(above_a_fifth(spinning)) << "a spinning thread never used 20% of a core in 3 s";
    // Most windows after the sleep began see (almost) no CPU, however loaded
    // the machine; one window can still catch a wake-up delayed by the load.
    std::vector<int64_t> sorted = sleeping;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_LT(sorted[sorted.size() / 2], 200) << "a sleeping thread used 20% of a core in most windows";
    EXPECT_GT(mean(spinning), mean(sleeping));
  });
}

// The counter is what a sampler records, like any other.
TEST(ThreadCpuCounter, ASamplerRecordsIt) {
  run_with_timeout([] {
    Burner burner;
    burner.set(Burner::spin);
    auto recorder = std::make_shared<Recorder>();
    CounterSampler sampler(recorder, {constant("c", 1), thread_cpu_counter("burner_cpu", burner.handle())});
    sampler.start();
    ASSERT_TRUE(eventually([&] { return recorder->counter_log().size() >= 30; }));
    sampler.stop();
    EXPECT_EQ(recorder->counter_names(), (std::vector<std::string>{"c", "burner_cpu"}));
    int64_t highest = 0;
    for (const CounterSample& row : samples(*recorder)) {
      EXPECT_GE(row.values[1], 0);
      EXPECT_LE(row.values[1], 1050);
      highest = std::max(highest, row.values[1]);
    }
    EXPECT_GT(highest, 200);
  });
}

// Two threads' clocks sum: with both spinning, the pair's share exceeds
// either's (read until it does by 10% of a core, up to 3 s, as a loaded
// machine may leave one of them waiting for a while).
TEST(ThreadCpuCounter, TheSharesOfSeveralThreadsAddUp) {
  run_with_timeout([] {
    Burner a, b;
    Counter one = thread_cpu_counter("a", a.handle());
    Counter both = threads_cpu_counter("a+b", {thread_cpu_clock(a.handle()), thread_cpu_clock(b.handle())});
    a.set(Burner::spin);
    b.set(Burner::spin);
    std::vector<int64_t> ones, boths;
    const auto start = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - start < std::chrono::seconds(3)) {
      ones.push_back(one.read());
      boths.push_back(both.read());
      if (ones.size() > 60 && mean(boths) > mean(ones) + 100) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    for (int64_t v : boths) {
      EXPECT_GE(v, 0);
      EXPECT_LE(v, 2100) << "more than two cores";
    }
    EXPECT_GT(mean(boths), mean(ones) + 100);
  });
}

// A thread's clock by its kernel id is the one pthread_getcpuclockid gives.
TEST(ThreadCpuCounter, AThreadsClockByItsIdIsItsPthreadClock) {
  EXPECT_EQ(thread_cpu_clock_of(static_cast<pid_t>(syscall(SYS_gettid))), thread_cpu_clock(pthread_self()));
  EXPECT_THROW(thread_cpu_counter("cpu", pthread_self(), 0), std::invalid_argument);
}

// Once the thread is gone its clock cannot be read: it adds nothing more,
// and a window later the counter reads 0.
TEST(ThreadCpuCounter, AThreadThatEndedReadsZeroAWindowLater) {
  auto burner = std::make_unique<Burner>();
  burner->set(Burner::spin);
  Counter counter = thread_cpu_counter("cpu", burner->handle());
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  burner.reset();
  const std::vector<int64_t> after = read_for(counter, 30, [](const std::vector<int64_t>& v) { return v.back() == 0; });
  ASSERT_FALSE(after.empty());
  EXPECT_EQ(after.back(), 0);
}

}  // namespace
}  // namespace asyncscope::trace
