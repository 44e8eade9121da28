// CounterSampler: argument checks, what a row holds, and the time order of the
// rows. No sampling rate is asserted: the machine may be loaded, so tests
// only wait (with a generous timeout) for "a few samples".
#include "engine/trace/counter_sampler.h"

#include <gtest/gtest.h>

#include <atomic>
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

}  // namespace
}  // namespace asyncscope::trace
