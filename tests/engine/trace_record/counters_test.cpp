// The counter table: one entry per known counter, names unique, lookups by
// name, and colours packed in ImGui's byte order (checked against ImGui
// itself in the widget tests).
#include "engine/trace_record/counters.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "engine/trace_record/counter_sampler.h"

namespace asyncscope::trace {
namespace {

TEST(Counters, EveryKnownCounterHasOneEntry) {
  std::set<std::string> names;
  for (const CounterSpec& spec : kCounters) {
    EXPECT_TRUE(names.insert(spec.name).second) << spec.name;
    EXPECT_NE(std::string(spec.label), "") << spec.name;
    EXPECT_EQ(spec.color >> 24, 255u) << spec.name << ": opaque";
  }
  for (const char* name : {kRssCounter, kLiveCounter, kPooledCounter, kQueueCounter, kRunningCounter,
                           kDeviceLiveCounter, kDevicePooledCounter, kRenderCpuCounter}) {
    const CounterSpec* spec = find_counter(name);
    ASSERT_NE(spec, nullptr) << name;
    EXPECT_EQ(std::string(spec->name), name);
  }
  EXPECT_EQ(names.size(), std::size(kCounters));
  EXPECT_EQ(find_counter("no_such_counter"), nullptr);
  EXPECT_EQ(find_counter(""), nullptr);
}

TEST(Counters, UnitsAndLanes) {
  EXPECT_EQ(find_counter(kQueueCounter)->unit, CounterUnit::count);
  EXPECT_EQ(find_counter(kRunningCounter)->unit, CounterUnit::count);
  for (const char* bytes : {kRssCounter, kLiveCounter, kPooledCounter, kDeviceLiveCounter, kDevicePooledCounter}) {
    EXPECT_EQ(find_counter(bytes)->unit, CounterUnit::bytes) << bytes;
  }
  EXPECT_EQ(find_counter(kQueueCounter)->lane, CounterLane::above_workers);
  EXPECT_EQ(find_counter(kRssCounter)->lane, CounterLane::below_workers);
  EXPECT_EQ(find_counter(kDeviceLiveCounter)->lane, CounterLane::below_workers);
  // Pooled bytes are a lane, so the gap between RSS and live bytes shows.
  EXPECT_EQ(find_counter(kPooledCounter)->lane, CounterLane::below_workers);
  EXPECT_EQ(find_counter(kRunningCounter)->lane, CounterLane::none);
  EXPECT_STREQ(find_counter(kDeviceLiveCounter)->label, "GPU memory");
  // The app's render CPU: a share of one core, drawn under the run's own lanes.
  EXPECT_EQ(find_counter(kRenderCpuCounter)->unit, CounterUnit::permille);
  EXPECT_EQ(find_counter(kRenderCpuCounter)->lane, CounterLane::below_workers);
  EXPECT_STREQ(find_counter(kRenderCpuCounter)->label, "app render CPU");
}

// A run on a GPU records 7 counters and the app adds its render CPU: all fit in a sample.
TEST(Counters, EveryKnownCounterFitsInOneSample) {
  EXPECT_LE(std::size(kCounters), static_cast<size_t>(kMaxCounters));
}

TEST(Counters, PackedColoursHaveRedInTheLowByte) {
  static_assert(pack_rgba(0x11, 0x22, 0x33, 0x44) == 0x44332211u);
  EXPECT_EQ(pack_rgba(1, 2, 3), 0xFF030201u);
}

TEST(Counters, TheRssCounterIsNamedFromTheTable) { EXPECT_EQ(rss_counter().name, kRssCounter); }

}  // namespace
}  // namespace asyncscope::trace
